"""Analysis of the wired fabric: shared facts computed once per design, and the max-flow they rest on."""
