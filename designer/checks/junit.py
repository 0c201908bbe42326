"""JUnit XML, the report format CI systems read: one writer for ``designer check`` and ``designer verify``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One test case: failed when ``failure`` (its one-line message) is given, with ``detail`` under it."""

    classname: str
    name: str
    failure: str | None = None
    detail: str = ""
    output: str | None = None
    """Text for ``system-out`` (what passed, warnings, evidence)."""
    kind: str | None = None
    """The failure's ``type`` attribute."""
    seconds: float | None = None


def junit_xml(suite_name: str, cases: Sequence[Case], output: str | None = None) -> str:
    """One ``testsuite`` inside ``testsuites``; ``output`` is the suite's own ``system-out``."""
    from xml.etree import ElementTree  # here, not at the top: every build imports this module, few write JUnit

    suite = ElementTree.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(cases)),
        failures=str(sum(case.failure is not None for case in cases)),
        errors="0",
        skipped="0",
    )
    for case in cases:
        element = ElementTree.SubElement(suite, "testcase", classname=case.classname, name=case.name)
        if case.seconds is not None:
            element.set("time", f"{case.seconds:.3f}")
        if case.failure is not None:
            failure = ElementTree.SubElement(element, "failure", message=case.failure)
            if case.kind:
                failure.set("type", case.kind)
            failure.text = case.detail
        if case.output is not None:
            ElementTree.SubElement(element, "system-out").text = case.output
    if output is not None:
        ElementTree.SubElement(suite, "system-out").text = output
    root = ElementTree.Element("testsuites")
    root.append(suite)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
