"""``designer verify``: run the generated FRR configs in real routers, one network namespace per switch.

* :mod:`~designer.verify.topology` reads a built design (``design.json`` and ``configs/frr/``), picks the
  routers of the lab (the whole fabric or a slice) and computes what a converged fabric must show.
* :mod:`~designer.verify.lab` creates namespaces, veth pairs and FRR daemons, and always tears them down.
* :mod:`~designer.verify.probe` reads BGP state, kernel routes, ping and traceroute from the running lab.
* :mod:`~designer.verify.run` puts them together: converge, assert, inject failures, restore, report.
* :mod:`~designer.verify.traffic` (``--traffic``): sampled servers in namespaces configured from their host files
  (read strictly by :mod:`~designer.verify.hostconfig`), RoCEv2 flows counted per link and compared with the
  workload model.
* :mod:`~designer.verify.report` renders the result as text, JSON or JUnit XML.

The same lab as a containerlab topology for Docker hosts is an output of the build
(:mod:`designer.outputs.containerlab`).
"""
