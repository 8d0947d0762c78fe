"""Provenance of a run as the C++ programs write it (apps/common/src/provenance.cpp; the schema, one table:
docs/provenance.md): a "provenance" object in JSON records, flat `prov_<field>` columns in CSV records and
`prov_<field>` keys in Google Benchmark's context. The tools read it and never rebuild it: this module only
knows the field names and how the flat spelling maps to the object (argv and env are JSON text there, the
numbers their JSON text, a missing load empty), so both spellings of one run give the same strings."""
import json

FIELDS = ("time_utc", "host", "argv", "commit", "build_type", "build_flags", "compiler", "mpi", "hwloc", "blas",
          "os", "cpu_model", "cores", "cpus_bound", "env", "load_1m", "placement")
PREFIX = "prov_"
_JSON_TEXT = ("argv", "env")          # lists and objects: JSON text in the flat spelling
_NUMBERS = ("cores", "cpus_bound", "load_1m")  # JSON numbers: their JSON text in the flat spelling


def _json_text(value):
    """JSON text as the C++ writes it: json.dumps' separators, keys in the order given (the programs sort
    env), UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False)


def _number_text(value):
    """A number as the C++ writes it (std::to_chars, shortest round trip): 2 -> '2', 0.42 -> '0.42'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def flat(provenance):
    """The provenance object as `prov_<field>` columns, the strings the C++ writes into a CSV record; a field
    the object lacks is empty. None (a run that wrote no record) gives every column empty."""
    provenance = provenance or {}
    row = {}
    for field in FIELDS:
        value = provenance.get(field)
        if value is None:
            row[PREFIX + field] = ""
        elif field in _JSON_TEXT:
            row[PREFIX + field] = _json_text(value)
        elif field in _NUMBERS:
            row[PREFIX + field] = _number_text(value)
        else:
            row[PREFIX + field] = str(value)
    return row


def from_flat(columns):
    """The provenance object from `prov_<field>` columns (a CSV record, a benchmark's context); None when
    there are none. A cell that is not what the schema says raises ValueError naming the column."""
    if not any(key.startswith(PREFIX) for key in columns):
        return None
    provenance = {}
    for field in FIELDS:
        text = columns.get(PREFIX + field)
        if text is None:
            continue
        try:
            if field in _JSON_TEXT or (field in _NUMBERS and text != ""):
                provenance[field] = json.loads(text)
            else:
                provenance[field] = None if field in _NUMBERS else text
        except ValueError as error:
            raise ValueError(f"column {PREFIX + field} {text!r} is not JSON: {error}") from error
    return provenance


def split(record):
    """(the record's own fields, its provenance object or None): a JSON record's "provenance", a CSV
    record's prov_* columns read back into the object."""
    if isinstance(record.get("provenance"), dict):
        return {k: v for k, v in record.items() if k != "provenance"}, record["provenance"]
    fields = {k: v for k, v in record.items() if not k.startswith(PREFIX)}
    return fields, from_flat(record)
