"""Example code of an operation: the curl command, the Python call and (when the `typescript`
target is on) the TypeScript call, as the docs show them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..ir import MISSING, Api, Operation
from ..targets.client.auth import Scheme
from ..targets.client.examples import (
    ExampleRequest,
    curl_command,
    example_request,
    literal,
    op_credentials,
    python_body,
    response_example,
)
from ..targets.client.resources import ClientOp
from .model import (
    Block,
    Code,
    DocsSettings,
    Heading,
    Text,
    status_text,
)


def call_expression(view: ClientOp, arguments: list[str]) -> str:
    """`client.<namespace>.<method>(arguments)`, one argument a line when long."""
    call = f"client.{view.call_path}"
    one_line = f"{call}({', '.join(arguments)})"
    if arguments and (len(one_line) > 80 or "\n" in one_line):
        return call + "(\n" + "".join(f"    {a},\n" for a in arguments) + ")"
    return one_line


def py_literal(value: Any, indent: int = 0) -> str:
    """A Python literal for a JSON value, strings in double quotes (as ruff would format them)."""
    return literal(value, python=True, indent=indent)


def python_call(op: Operation, view: ClientOp, arguments: list[str]) -> str:
    """The statements calling the operation and printing what it answers."""
    one_line = call_expression(view, arguments)
    if view.page:
        return f"for item in {one_line}:\n    print(item)"
    if view.returns == "None":
        return one_line
    return f"result = {one_line}\nprint(result)"


def python_client_setup(
    api: Api, settings: DocsSettings, credentials: Sequence[Scheme] | None = None
) -> str:
    """Making the client: credentials (the primary scheme's unless given) from the environment."""
    if credentials is None:
        primary = settings.primary(api)
        credentials = [primary] if primary else []
    arguments = [
        f'{option}=os.environ["{env}"]'
        for scheme in credentials
        for option, env in zip(scheme.options, scheme.envs, strict=True)
    ]
    arguments.append(f'base_url="{settings.base_url(api)}"')
    imports = "import os\n\n" if credentials else ""
    return (
        f"{imports}from {settings.client_package} import Client\n\n"
        f"client = Client({', '.join(arguments)})\n"
    )


def python_example(
    api: Api, example: ExampleRequest, view: ClientOp, settings: DocsSettings
) -> str:
    op = example.op
    arguments = [f"{p.py_name}={py_literal(value, 4)}" for p, value in example.arguments]
    credentials = op_credentials(api, op, settings.env_prefix)
    if view.token_param:
        own = [s for s in credentials if s.name == view.token_scheme]
        credentials = [s for s in credentials if s.name != view.token_scheme]
        if own:
            arguments.append(f'{view.token_param}=os.environ["{own[0].envs[0]}"]')
    if example.body is not MISSING:
        body = python_body(op, example.body)
        arguments.append(f"body={py_literal(example.body, 4) if body is None else body}")
    setup = python_client_setup(api, settings, credentials)
    if view.token_param and not credentials:
        setup = "import os\n\n" + setup
    return setup + "\n" + python_call(op, view, arguments) + "\n"


def typescript_example(
    api: Api, example: ExampleRequest, view: ClientOp, settings: DocsSettings
) -> str:
    """The TypeScript client's call (`targets/typescript.py`'s names: the Python client's, in
    camelCase), credentials from `process.env`."""
    from ..targets.typescript import body_fields, camel, param_keys, prop_key, streamed

    op = example.op
    fields = [f"{camel(p.py_name)}: {json.dumps(value)}" for p, value in example.arguments]
    flat = body_fields(api, op)
    if example.body is not MISSING and flat is not None:
        given = example.body if isinstance(example.body, dict) else {}
        for key, wire, _, _ in flat:
            if wire in given:
                value = json.dumps(given[wire], indent=2, ensure_ascii=False)
                fields.append(f"{prop_key(key)}: {value.replace(chr(10), chr(10) + '  ')}")
    elif example.body is not MISSING:
        kind = op.body.kind if op.body is not None else "json"
        if kind == "binary":
            body = "new Blob([/* the bytes */])"
        else:
            body = json.dumps(example.body, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        member = "requestBody" if "body" in param_keys(op) else "body"
        fields.append(f"{member}: {body}")
    options = [
        f"{camel(option)}: process.env.{env}"
        for scheme in op_credentials(api, op, settings.env_prefix)
        for option, env in zip(scheme.options, scheme.envs, strict=True)
    ]
    options.append(f'baseUrl: "{settings.base_url(api)}"')
    call = "client." + ".".join([*(camel(n) for n in view.namespace), camel(view.method)])
    argument = "{ " + ", ".join(fields) + " }" if fields else ""
    if "\n" in argument or len(argument) > 60:
        argument = "{\n" + "".join(f"  {f},\n" for f in fields) + "}"
    lines = [
        f'import {{ Client }} from "{settings.typescript_package}";',
        "",
        f"const client = new Client({{ {', '.join(options)} }});",
        "",
    ]
    if view.page:
        lines += [f"for await (const item of {call}({argument})) {{", "  console.log(item);", "}"]
    elif streamed(op):
        lines += [
            f"for await (const item of await {call}({argument})) {{",
            "  console.log(item);",
            "}",
        ]
    elif view.returns == "None":
        lines.append(f"await {call}({argument});")
    else:
        lines += [f"const result = await {call}({argument});", "console.log(result);"]
    return "\n".join(lines) + "\n"


def example_blocks(api: Api, op: Operation, view: ClientOp, settings: DocsSettings) -> list[Block]:
    example = example_request(api, op)
    out: list[Block] = [Heading("Example request")]
    primary = settings.primary(api)
    envs = [e for s in op_credentials(api, op, settings.env_prefix) for e in s.envs]
    if envs and (primary is None or envs != list(primary.envs)):
        names = " and ".join(f"`${e}`" for e in envs)
        out.append(Text(f"The examples read this operation's credentials from {names}."))
    out.append(
        Code(
            "sh",
            curl_command(api, example, settings.origin, settings.env_prefix),
            "curl",
            "curl",
            op.operation_id,
        )
    )
    out.append(
        Code(
            "python",
            python_example(api, example, view, settings),
            "Python",
            "python",
            op.operation_id,
        )
    )
    if settings.typescript_package:
        code = typescript_example(api, example, view, settings)
        out.append(Code("typescript", code, "TypeScript", "", op.operation_id))
    success = op.success
    value = response_example(api, op)
    out.append(Heading("Example response"))
    if value is None:
        out.append(Text(f"`{status_text(success.status)}`, no body."))
    else:
        body = json.dumps(value, indent=2, ensure_ascii=False)
        out.append(Code("json", body, status_text(success.status)))
    return out
