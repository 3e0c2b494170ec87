"""Parameters, request bodies, responses (every status, `default` included) and headers."""

from __future__ import annotations

import datetime
from typing import Any

from .document import Operation, parse_sunset
from .model import Where
from .schemas import SchemaDiffer


def _media_parts(media: str) -> tuple[str, str, str]:
    """`application/problem+json` -> ("application", "problem", "json")."""
    kind, _, subtype = media.split(";", 1)[0].strip().lower().partition("/")
    name, plus, suffix = subtype.rpartition("+")
    return (kind, name, suffix) if plus else (kind, "", subtype)


def is_json(media: str) -> bool:
    """JSON keeps `1` and `"1"` apart; text media types (XML, forms, text) do not."""
    kind, _, suffix = _media_parts(media)
    return kind == "application" and suffix == "json"


def specializes(general: str, special: str) -> bool:
    """`application/problem+json` specializes `application/json` (RFC 6838 structured suffix)."""
    g_kind, g_name, g_suffix = _media_parts(general)
    s_kind, s_name, s_suffix = _media_parts(special)
    return g_kind == s_kind and not g_name and bool(s_name) and g_suffix == s_suffix


class MessageDiffer(SchemaDiffer):
    # -- parameters ---------------------------------------------------------------------

    def parameters(self, old: Operation, new: Operation) -> None:
        for key in [*old.params, *(k for k in new.params if k not in old.params)]:
            old_param, new_param = old.params.get(key), new.params.get(key)
            param = new_param or old_param or {}
            name = f"{param.get('in')} parameter `{param.get('name')}`"
            if new_param is None:
                self.parameter_removed(old_param or {}, name)
                continue
            if old_param is None:
                kind = "required" if new_param.get("required") else "optional"
                if key in new.shared and key[0] != "path":
                    self.emit(
                        f"new-{kind}-request-default-parameter-to-existing-path",
                        f"added the {kind} {name} to the path (every operation on it)",
                    )
                else:
                    self.emit(f"new-{kind}-request-parameter", f"added the {kind} {name}")
                continue
            if not old_param.get("required") and new_param.get("required"):
                self.emit("request-parameter-became-required", f"the {name} became required")
            if old_param.get("required") and not new_param.get("required"):
                self.emit("request-parameter-became-optional", f"the {name} became optional")
            if not old_param.get("deprecated") and new_param.get("deprecated"):
                self.emit("request-parameter-deprecated", f"the {name} is deprecated")
            if old_param.get("deprecated") and not new_param.get("deprecated"):
                self.emit("request-parameter-reactivated", f"the {name} is no longer deprecated")
            if old_param.get("deprecated") and new_param.get("deprecated"):
                self.parameter_sunset(old_param, new_param, name)
            where = Where(
                "request",
                "request-parameter",
                "request-parameter-property",
                f"the {name}",
                f"`@` of the {name}",
                items_are_root=True,
            )
            self.schema(old_param.get("schema"), new_param.get("schema"), where)

    def parameter_removed(self, old: dict[str, Any], name: str) -> None:
        if not old.get("deprecated"):
            self.emit("request-parameter-removed", f"removed the {name}")
            return
        date = parse_sunset(old.get("x-sunset"))
        if isinstance(date, str):
            self.emit(
                "request-parameter-sunset-parse", f"`x-sunset: {date}` of the {name} is not a date"
            )
        elif date is not None and datetime.date.today() < date:
            self.emit(
                "request-parameter-removed-before-sunset",
                f"deprecated {name} removed before its sunset {date}",
            )
        else:
            self.emit("request-parameter-removed-with-deprecation", f"deprecated {name} removed")

    def parameter_sunset(self, old: dict[str, Any], new: dict[str, Any], name: str) -> None:
        old_date, date = parse_sunset(old.get("x-sunset")), parse_sunset(new.get("x-sunset"))
        if old_date == date:
            return
        if isinstance(old_date, str) or isinstance(date, str):
            shown = date if isinstance(date, str) else old_date
            self.emit(
                "request-parameter-sunset-parse", f"`x-sunset: {shown}` of the {name} is not a date"
            )
        elif date is None:
            self.emit(
                "request-parameter-sunset-deleted", f"`x-sunset` removed from the deprecated {name}"
            )

    # -- request body -------------------------------------------------------------------

    def request_body(self, old_raw: Any, new_raw: Any) -> None:
        if old_raw is None and new_raw is None:
            return
        old, new = self.old.node(old_raw), self.new.node(new_raw)
        if old_raw is None:
            required = "required" if new.get("required") else "optional"
            self.emit(f"request-body-added-{required}", f"added an {required} request body")
            return
        if new_raw is None:
            self.emit("request-body-removed", "removed the request body")
            return
        if not old.get("required") and new.get("required"):
            self.emit("request-body-became-required", "the request body became required")
        if old.get("required") and not new.get("required"):
            self.emit("request-body-became-optional", "the request body became optional")
        old_content, new_content = self._content(old), self._content(new)
        for media in old_content:
            if media not in new_content:
                self.emit(
                    "request-body-media-type-removed", f"request media type `{media}` removed"
                )
        for media in new_content:
            if media not in old_content:
                self.emit("request-body-media-type-added", f"request media type `{media}` added")
        common = [m for m in old_content if m in new_content]
        for media in common:
            suffix = f" ({media})" if len(common) > 1 else ""
            where = Where(
                "request",
                "request-body",
                "request-property",
                f"the request body{suffix}",
                f"request property `@`{suffix}",
                loose=not is_json(media),
            )
            self.media_schema("request", media, old_content[media], new_content[media], where)

    def media_schema(self, side: str, media: str, old_raw: Any, new_raw: Any, where: Where) -> None:
        """A media type's schema: given, taken away, or compared."""
        old, new = self.old.node(old_raw).get("schema"), self.new.node(new_raw).get("schema")
        if old is None and new is not None:
            self.emit(
                f"{side}-body-media-type-schema-added", f"{where.root} (`{media}`) now has a schema"
            )
        elif old is not None and new is None:
            self.emit(
                f"{side}-body-media-type-schema-removed",
                f"{where.root} (`{media}`) lost its schema",
            )
        else:
            self.schema(old, new, where)

    @staticmethod
    def _content(node: dict[str, Any]) -> dict[str, Any]:
        content = node.get("content")
        return content if isinstance(content, dict) else {}

    # -- responses ----------------------------------------------------------------------

    def responses(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for status in old:
            if status not in new:
                kind = "success" if str(status).startswith("2") else "non-success"
                self.emit(f"response-{kind}-status-removed", f"removed the {status} response")
        for status in new:
            if status not in old:
                kind = "success" if str(status).startswith("2") else "non-success"
                self.emit(f"response-{kind}-status-added", f"added the {status} response")
        for status, old_response in old.items():
            if status in new:
                self.response(str(status), self.old.node(old_response), self.new.node(new[status]))

    def response(self, status: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.headers(status, old.get("headers") or {}, new.get("headers") or {})
        old_content, new_content = self._content(old), self._content(new)
        pairs = [(m, m) for m in old_content if m in new_content]
        removed = [m for m in old_content if m not in new_content]
        added = [m for m in new_content if m not in old_content]
        for media in removed:
            partner = next(
                (m for m in added if specializes(media, m) or specializes(m, media)), None
            )
            if partner is None:
                self.emit(
                    "response-media-type-removed", f"{status} response media type `{media}` removed"
                )
                continue
            added.remove(partner)
            pairs.append((media, partner))
            kind = "specialized" if specializes(media, partner) else "generalized"
            self.emit(
                f"response-media-type-name-{kind}",
                f"{status} response media type `{media}` became `{partner}`",
            )
        for media in added:
            self.emit("response-media-type-added", f"{status} response media type `{media}` added")
        for old_media, new_media in pairs:
            suffix = f", {new_media}" if len(pairs) > 1 else ""
            where = Where(
                "response",
                "response-body",
                "response-property",
                f"the {status} response body{suffix}",
                f"response property `@` ({status}{suffix})",
                loose=not is_json(new_media),
            )
            self.media_schema(
                "response", new_media, old_content[old_media], new_content[new_media], where
            )

    def headers(self, status: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        old_h = {str(k).lower(): (str(k), v) for k, v in old.items()}
        new_h = {str(k).lower(): (str(k), v) for k, v in new.items()}
        for key, (name, raw) in old_h.items():
            header = self.old.node(raw)
            if key not in new_h:
                rule = "required" if header.get("required") else "optional"
                self.emit(
                    f"{rule}-response-header-removed", f"{status} response header `{name}` removed"
                )
                continue
            new_header = self.new.node(new_h[key][1])
            if header.get("required") and not new_header.get("required"):
                self.emit(
                    "response-header-became-optional",
                    f"{status} response header `{name}` became optional",
                )
            subject = f"the {status} response header `{name}`"
            where = Where(
                "response", "response-header", "response-header", subject, f"`@` of {subject}"
            )
            self.schema(header.get("schema"), new_header.get("schema"), where)
        for key, (name, _) in new_h.items():
            if key not in old_h:
                self.emit("response-header-added", f"{status} response header `{name}` added")
