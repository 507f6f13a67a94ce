"""Schema ids of the source registry -> ids of the same schemas on the target registry (schema replication).

For a source id met in a record of source topic T (remote topic R on the target):
1. the source registry's subjects holding the id are looked up; those of T (TopicNameStrategy `T-key`/`T-value`,
   TopicRecordNameStrategy `T-<record name>`) are renamed `R-...`; when T has none, the subjects that name
   no topic's key or value (RecordNameStrategy: the record's full name) keep their name; when there are
   none either, the schema goes under `R-key` or `R-value` (TopicNameStrategy);
2. each such subject is copied to the target up to the version holding the id: every version in order,
   each one's references first (a referenced subject keeps its name), and, for a subject the target does not
   have yet, the source subject's own compatibility level before its first version;
3. the target's id of the schema is the answer. Registering a schema the target subject already holds
   returns the target's existing id and adds no version: a schema already on the target (active/active, a
   cycle A->B->A) maps to the target's id and is not registered again.
Every answer is cached for the task's life: a record of a known id costs a dict lookup.

Invariants:
- Nothing is ever deleted on either registry; the source registry is only read.
- Any failure raises RegistryError (an unknown id: `not_found`) and caches nothing: the next record asks again.
"""

from __future__ import annotations

import logging

from pyconnect.kafka.schema_registry import Reference, Registry, RegistryError, SchemaText

log = logging.getLogger(__name__)
KEY, VALUE = "key", "value"


class SchemaMapper:
    """Maps source schema ids to target ids for one flow (one task's; not thread-safe)."""

    def __init__(self, source: Registry, target: Registry) -> None:
        self.source, self.target = source, target
        self._ids: dict[tuple[str, str, bool, int], int] = {}  # (topic, remote, is key, source id) -> target id
        # target subject -> source version -> (target id, target version) of what this mapper copied
        self._copied: dict[str, dict[int, tuple[int, int]]] = {}
        self.registered = 0  # versions registered on the target (an existing schema's register counts too)

    def target_id(self, topic: str, remote: str, source_id: int, is_key: bool) -> int:
        """The target registry's id of source id `source_id`, met in a key (or value) of `topic`."""
        cached = self._ids.get((topic, remote, is_key, source_id))
        if cached is not None:
            return cached
        try:
            holders = self.source.subject_versions(source_id)
        except RegistryError as e:
            if e.not_found:
                raise RegistryError(f"schema id {source_id} (in a {'key' if is_key else 'value'} of {topic}) is "
                                    f"unknown to the source registry: {e}", not_found=True) from None
            raise
        chosen = subjects_for(topic, remote, holders, is_key)
        if chosen:
            ids = [self._copy_subject(src, dst, version) for src, dst, version in chosen]
            target = ids[0]
        else:
            schema = self._with_target_references(self.source.schema(source_id))
            target, _ = self.target.register(f"{remote}-{KEY if is_key else VALUE}", schema)
            self.registered += 1
        self._ids[(topic, remote, is_key, source_id)] = target
        log.info("schema id %d of %s -> id %d on the target registry (subjects %s)", source_id, topic, target,
                 ", ".join(dst for _, dst, _ in chosen) or f"{remote}-{KEY if is_key else VALUE}")
        return target

    def _copy_subject(self, subject: str, target_subject: str, up_to: int) -> int:
        """Copy `subject`'s versions up to `up_to` to `target_subject`; the target id of version `up_to`."""
        return self._copy(subject, target_subject, up_to)[0]

    def _copy(self, subject: str, target_subject: str, up_to: int) -> tuple[int, int]:
        copied = self._copied.get(target_subject)
        if copied is not None and up_to in copied:
            return copied[up_to]
        if copied is None:
            copied = {}
            if not self.target.versions(target_subject):  # a new subject: the source's level first
                level = self.source.compatibility(subject)
                if level is not None:
                    self.target.set_compatibility(target_subject, level)
        for version in self.source.versions(subject):
            if version > up_to:
                break
            if version in copied:
                continue
            schema, _ = self.source.version(subject, version)
            copied[version] = self.target.register(target_subject, self._with_target_references(schema))
            self.registered += 1
        self._copied[target_subject] = copied
        if up_to not in copied:
            raise RegistryError(f"subject {subject} of the source registry has no version {up_to}", not_found=True)
        return copied[up_to]

    def _with_target_references(self, schema: SchemaText) -> SchemaText:
        """`schema` with each reference copied to the target first and pointing at its target version."""
        if not schema.references:
            return schema
        refs = tuple(Reference(r.name, r.subject, self._copy(r.subject, r.subject, r.version)[1])
                     for r in schema.references)
        return SchemaText(schema.text, schema.type, refs)


def subjects_for(topic: str, remote: str, holders: list[tuple[str, int]], is_key: bool
                 ) -> list[tuple[str, str, int]]:
    """(source subject, target subject, version) to copy for a schema held by `holders` (see the module
    docstring, step 1), the one matching the record's side (`-key` or `-value`) first."""
    prefix = topic + "-"
    own = [(s, remote + s[len(topic):], v) for s, v in holders if s.startswith(prefix)]
    if not own:
        own = [(s, s, v) for s, v in holders if not s.endswith(("-key", "-value"))]
    wanted = f"-{KEY if is_key else VALUE}"
    return sorted(own, key=lambda c: (not c[0].endswith(wanted), c[0]))

