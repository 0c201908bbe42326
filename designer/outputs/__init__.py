"""Turn a design into its files: every file as bytes, same design, same bytes.

One module per kind of file: ``tables`` (cabling, addressing, ASNs), ``physical`` (racks, power, BOM),
``summary`` (summary.md and the plan contract), ``design_json``, ``floorplan``, ``topology`` (the
logical picture), ``lab`` (containerlab),
``workloads`` (the workload analysis: contract, details, text, workloads.svg);
``folder`` claims the output folder and writes it atomically; ``build`` puts them together (with the switch and
server files) and writes a build. Importing this package imports none of them: ``designer plan`` reads the summary
without loading the renderers.
"""
