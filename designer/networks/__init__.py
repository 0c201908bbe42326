"""The networks beside the backend (frontend, storage, in-band, out-of-band), each sized, wired and allocated
from its own resolved spec by the modules of this package."""
