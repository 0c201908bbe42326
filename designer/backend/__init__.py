"""The GPU backend fabric's stages, in the order the pipeline runs them: size, wire, allocate, physical, port
names, model, hosts (the networks beside the backend take the same steps in :mod:`designer.networks`)."""
