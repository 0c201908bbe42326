"""The explore stage: every candidate design of an intent (:mod:`designer.explore.run`) and its reports
(:mod:`designer.explore.report`)."""

from designer.explore.run import MAX_CANDIDATES, Dimension, Exploration, candidate_names, explore, pareto

__all__ = ["MAX_CANDIDATES", "Dimension", "Exploration", "candidate_names", "explore", "pareto"]
