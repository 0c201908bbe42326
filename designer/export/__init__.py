"""``designer export``: a built design in another tool's input format (``avd``: Arista AVD's eos_designs)."""
