"""The kernel's records (docs/RECORDS.md): one a line,
`@name key=value key=value ...`.  Values never contain spaces and keys may
be added at the end later, so a record is read by key; any other line is
not a record.  The same reading as the `(\\w+)=(\\S+)` the shell tests used.
"""
import re

_LINE = re.compile(r'^@(\w+)(?: (.*))?$')
_FIELD = re.compile(r'(\w+)=(\S+)')


class Record(dict):
    """One record: its fields (str -> str), .name, and .line, the line."""

    def __init__(self, name, fields, line):
        super().__init__(fields)
        self.name = name
        self.line = line

    def int(self, key):
        """The field as a number (decimal, or 0x... hexadecimal)."""
        v = self[key]
        return int(v, 16) if v.startswith('0x') else int(v)


def parse(text):
    """Every record in text, in order (CRs of a serial console dropped)."""
    recs = []
    for line in text.splitlines():
        line = line.rstrip('\r')
        m = _LINE.match(line)
        if m:
            recs.append(Record(m.group(1), _FIELD.findall(m.group(2) or ''),
                               line))
    return recs


def select(recs, name, **match):
    """The records called name whose fields equal every key=value given."""
    return [r for r in recs if r.name == name and
            all(r.get(k) == v for k, v in match.items())]


def first(recs, name, **match):
    """The first such record, or None."""
    found = select(recs, name, **match)
    return found[0] if found else None
