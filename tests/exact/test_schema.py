"""The shipped JSON Schemas: valid themselves, matched by what we write and ship, and
used to reject malformed input with a one-line error naming the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from certified import Instance
from certified.errors import CertifiedError, InputError
from certified.exact.schema import KINDS, check_input, check_output, schema
from certified.studies.audit import AuditRecord, shipped_records

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind", KINDS)
def test_schemas_are_valid_draft_2020_12(kind):
    Draft202012Validator.check_schema(schema(kind))


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.json")), ids=lambda p: p.stem)
def test_shipped_instances_match(path):
    check_input(json.loads(path.read_text()), "instance")
    check_input(Instance.load(path).to_json(), "instance")


@pytest.mark.parametrize("path", shipped_records(), ids=lambda p: p.stem)
def test_shipped_records_match(path):
    check_input(json.loads(path.read_text()), "audit")


def test_schema_backstop_names_the_json_path():
    rec = json.loads(shipped_records()[0].read_text())
    rec["claims"][0]["note"] = "an extra key"
    with pytest.raises(InputError) as err:
        AuditRecord(rec)
    assert str(err.value).startswith("audit.claims[0]") and "\n" not in str(err.value)
    rec = json.loads(shipped_records()[0].read_text())
    rec["claims"][0]["reading"] = {"clusters": -1}
    with pytest.raises(InputError, match=r"audit\.claims\[0\]\.reading\.clusters"):
        AuditRecord(rec)


def test_a_malformed_certificate_is_never_written():
    good = {"format": "certified/certificate", "version": 1, "theorem": "3.1",
            "verdict": "certified", "instance": {"V": [], "Q": [], "K": [], "X0": []},
            "digest": "0" * 64}
    check_output(good, "certificate")
    for key, bad in (("verdict", "proved"), ("digest", "xyz"), ("version", 2)):
        with pytest.raises(CertifiedError, match="does not match its schema"):
            check_output(dict(good, **{key: bad}), "certificate")
