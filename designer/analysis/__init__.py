"""Analysis of the wired fabric: shared facts computed once per design, the max-flow they rest on, and what
the fabric does to each workload (collectives, flows, hashing)."""
