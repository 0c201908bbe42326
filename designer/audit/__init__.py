"""``designer audit``: the cabling as the devices report it, compared with a built design.

:mod:`~designer.audit.readers` turns each device's discovery file into plain cables, :mod:`~designer.audit.names`
maps the names each OS reports to the design's, :mod:`~designer.audit.compare` finds what is missing, extra and
miswired, and :mod:`~designer.audit.report` writes it as text or JSON.
"""
