"""Writing a built design into a source of truth: the backend-neutral objects (:mod:`.inventory`) and one module
per consumer (:mod:`.nautobot`)."""
