"""devstack.gateway / events / aws against the fixture template, and
create_resources on the real template.yaml (moto server on port 0)."""

from __future__ import annotations

import base64
import http.client
import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import httpx
import pytest

from devstack.aws import aws_env, create_resources, start_moto
from devstack.cfn import load_template
from devstack.events import ApiRequest, api_event, is_binary_media_type, lambda_context, match_path
from devstack.gateway import Gateway, start_gateway
from devstack.limits import API_GATEWAY_MAX_REQUEST_BYTES

ROOT = Path(__file__).resolve().parents[2]
REAL_TEMPLATE = ROOT / "template.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_TEMPLATE = FIXTURES / "template.yaml"


@pytest.fixture(scope="module")
def moto():
    handle = start_moto(port=0)
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def stack(moto):
    return create_resources(FIXTURE_TEMPLATE, moto.url, prefix="gwtest", parameters={"Greeting": "howdy"})


@pytest.fixture(scope="module")
def gateway(moto, stack):
    env = {**stack.environment(), **aws_env(moto.url)}
    login_calls = []

    def login(request):
        login_calls.append(request)
        return 200, {"Content-Type": "text/html"}, b"<h1>login</h1>"

    handle = start_gateway(FIXTURE_TEMPLATE, env, port=0, extra_routes={("GET", "/dev/login"): login}, log=False)
    handle.login_calls = login_calls
    yield handle
    handle.stop()
    assert "FIXTURE_TABLE" not in os.environ  # environment restored


@pytest.fixture()
def client(gateway):
    with httpx.Client(base_url=gateway.url, timeout=30) as c:
        yield c


def echo(response: httpx.Response) -> dict:
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["function"] == "echo"
    return data


# --------------------------------------------------------------------------- routing


def test_health_and_route_table(gateway, client):
    r = client.get("/_devstack/health")
    assert r.status_code == 200 and r.json() == {"ok": True}
    routes = set(gateway.routes)
    assert ("GET", "/items/{id}", "EchoFunction") in routes
    assert ("POST", "/items/{id}", "EchoFunction") in routes
    assert ("GET", "/items/special", "SpecialFunction") in routes
    assert not any(fn == "ScheduledFunction" for _, _, fn in routes)


def test_path_params_and_event_shape(gateway, client):
    data = echo(client.get("/items/abc123"))
    ev = data["event"]
    assert ev["resource"] == "/items/{id}"
    assert ev["path"] == "/items/abc123"
    assert ev["httpMethod"] == "GET"
    assert ev["pathParameters"] == {"id": "abc123"}
    assert ev["queryStringParameters"] is None and ev["multiValueQueryStringParameters"] is None
    assert ev["stageVariables"] is None
    assert ev["body"] is None and ev["isBase64Encoded"] is False
    rc = ev["requestContext"]
    assert rc["resourcePath"] == "/items/{id}" and rc["httpMethod"] == "GET"
    assert rc["stage"] == "dev" and rc["path"] == "/dev/items/abc123"
    assert rc["accountId"] == "123456789012" and rc["apiId"]
    assert len(rc["requestId"]) == 36 and isinstance(rc["requestTimeEpoch"], int)
    assert rc["protocol"] == "HTTP/1.1"
    assert rc["identity"]["sourceIp"] == "127.0.0.1"
    assert rc["identity"]["userAgent"].startswith("python-httpx")
    assert data["context"]["function_name"] == "EchoFunction"
    assert data["context"]["memory_limit_in_mb"] == 256
    assert 0 < data["context"]["remaining"] <= 10_000

    nested = echo(client.get("/things/one/sub/two"))["event"]
    assert nested["pathParameters"] == {"a": "one", "b": "two"}
    assert nested["resource"] == "/things/{a}/sub/{b}"

    encoded = echo(client.get("/items/a%20b"))["event"]
    assert encoded["pathParameters"] == {"id": "a b"}  # decoded
    assert encoded["path"] == "/items/a%20b"  # REST APIs keep the path percent-encoded
    assert encoded["requestContext"]["path"] == "/dev/items/a%20b"

    proxy = echo(client.delete("/any/x/y/z"))["event"]
    assert proxy["resource"] == "/any/{proxy+}" and proxy["pathParameters"] == {"proxy": "x/y/z"}
    assert proxy["httpMethod"] == "DELETE"


def test_literal_segment_beats_parameter(client):
    r = client.get("/items/special")
    assert r.status_code == 200
    assert r.json() == {"function": "special", "module": "fn_SpecialFunction"}
    assert r.headers["content-type"] == "application/json"  # API Gateway's default
    assert echo(client.get("/items/specia1"))["event"]["pathParameters"] == {"id": "specia1"}
    # like API Gateway: the most specific resource is chosen first, then its method; none on
    # it is API Gateway's MISSING_AUTHENTICATION_TOKEN (the fixture customizes no response)
    r = client.post("/items/special", content=b"{}")
    assert r.status_code == 403 and r.json() == {"message": "Missing Authentication Token"}
    assert r.headers["x-amzn-errortype"] == "MissingAuthenticationTokenException"


def test_handlers_load_as_unique_modules_with_layer_and_env(gateway, client, stack, moto):
    data = echo(client.get("/items/1"))
    assert data["module"] == "fn_EchoFunction" and data["layer"] == "fixture-layer"
    assert client.get("/items/special").json()["module"] == "fn_SpecialFunction"  # loaded here, whatever ran before
    assert "fn_EchoFunction" not in sys.modules and "fn_SpecialFunction" not in sys.modules  # not in this process
    assert data["process"]["pid"] != os.getpid()
    env = data["env"]
    assert env["FIXTURE_TABLE"] == "gwtest-ItemsTable" == stack["ItemsTable"]["Ref"]
    assert env["FIXTURE_TABLE_ARN"] == stack["ItemsTable"]["Arn"]
    assert env["FIXTURE_BUCKET"] == "gwtest-filesbucket"
    assert env["FIXTURE_BUCKET_OBJECTS"] == "arn:aws:s3:::gwtest-filesbucket/*"
    assert env["FIXTURE_KEY_ID"] == stack["SigningKey"]["Ref"]
    assert env["FIXTURE_GREETING"] == "howdy" and env["FIXTURE_MODE"] == "development"
    assert env["AWS_ENDPOINT_URL"] == moto.url


def test_each_function_runs_in_processes_of_its_own_forked_after_the_snapshot_hooks(client):
    """One request at a time per process: sequential requests reuse a warm one; overlapping requests
    get more. Each is a fork of one parent per function, which ran the before-snapshot hooks; each
    ran the after-restore hooks itself."""
    first, second = (echo(client.get("/items/1"))["process"] for _ in range(2))
    assert first == second  # warm: the same process
    assert first["pid"] != os.getpid() and first["after_restore"] == first["pid"]
    assert first["before_snapshot"] == first["parent"] != os.getpid()
    barrier = threading.Barrier(3)

    def overlapping(_: int) -> dict:
        barrier.wait(timeout=30)
        return echo(client.get("/items/1", params={"slow": "1"}))["process"]

    with ThreadPoolExecutor(3) as pool:
        seen = list(pool.map(overlapping, range(3)))
    assert len({p["pid"] for p in seen}) == 3  # one request at a time in each
    assert {p["parent"] for p in seen} == {first["parent"]}  # forks of the same initialized parent
    assert all(p["after_restore"] == p["pid"] for p in seen)


def test_a_changed_environment_gets_new_processes_and_the_old_ones_exit(client, monkeypatch):
    """As a new version does on Lambda: a request after the functions' environment changed runs in a
    fork of a new parent that sees it, never in a warm process of the old one, and the old parent and
    its workers exit (each kept before: a test run's pytest worker held parents by the dozen)."""
    import time

    old = echo(client.get("/items/1"))["process"]
    monkeypatch.setenv("FIXTURE_VERSION", "2")
    new = echo(client.get("/items/1"))
    assert new["env"]["FIXTURE_VERSION"] == "2"
    assert new["process"]["parent"] != old["parent"] and new["process"]["pid"] != old["pid"]
    assert echo(client.get("/items/1"))["process"] == new["process"]  # the new one stays warm
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in (old["pid"], old["parent"])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in (old["pid"], old["parent"]))


def test_query_strings_with_repeated_keys(client):
    ev = echo(client.get("/items/1?a=1&a=2&b=x%20y&c="))["event"]
    assert ev["queryStringParameters"] == {"a": "2", "b": "x y", "c": ""}
    assert ev["multiValueQueryStringParameters"] == {"a": ["1", "2"], "b": ["x y"], "c": [""]}
    assert ev["path"] == "/items/1"


def test_headers_case_preserved_and_repeated(gateway):
    conn = http.client.HTTPConnection(gateway.host, gateway.port, timeout=30)
    conn.putrequest("GET", "/items/1", skip_accept_encoding=True)
    conn.putheader("X-Custom-Header", "Value")
    conn.putheader("x-multi", "1")
    conn.putheader("x-multi", "2")
    conn.putheader("Authorization", "Bearer app_at_x")
    conn.putheader("User-Agent", "agent/1.0")
    conn.endheaders()
    resp = conn.getresponse()
    data = json.loads(resp.read())
    conn.close()
    ev = data["event"]
    assert ev["headers"]["X-Custom-Header"] == "Value"
    assert ev["headers"]["Authorization"] == "Bearer app_at_x"
    assert ev["headers"]["x-multi"] == "2"
    assert ev["multiValueHeaders"]["x-multi"] == ["1", "2"]
    assert ev["multiValueHeaders"]["X-Custom-Header"] == ["Value"]
    assert ev["headers"]["Host"] == f"{gateway.host}:{gateway.port}"
    assert ev["headers"]["X-Forwarded-For"] == "127.0.0.1"
    assert ev["requestContext"]["identity"]["userAgent"] == "agent/1.0"
    # response headers: single and multi-value
    assert resp.getheader("X-Single") == "one"
    assert resp.msg.get_all("Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"]
    assert resp.getheader("x-amzn-RequestId")


def test_binary_multipart_body_arrives_base64(client):
    payload = bytes(range(256)) * 4 + b"\r\n--not-the-boundary\r\n\x00\xff"
    boundary = "----devstackBoundary7MA4YWxk"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.bin"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + payload
        + f"\r\n--{boundary}--\r\n".encode()
    )
    r = client.post("/upload", content=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    ev = echo(r)["event"]
    assert ev["isBase64Encoded"] is True
    assert base64.b64decode(ev["body"]) == body

    ev = echo(client.post("/upload", content=b"\x89PNG\r\n", headers={"Content-Type": "image/png"}))["event"]
    assert ev["isBase64Encoded"] is True and base64.b64decode(ev["body"]) == b"\x89PNG\r\n"

    ev = echo(client.post("/items/9", json={"name": "é"}))["event"]
    assert ev["isBase64Encoded"] is False and json.loads(ev["body"]) == {"name": "é"}


def test_binary_response_is_decoded(client):
    r = client.get("/binary")
    assert r.status_code == 200 and r.content == bytes(range(256))
    assert r.headers["content-type"] == "application/octet-stream"


def test_source_ip_is_the_tcp_peer(gateway):
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=gateway.url, transport=transport, timeout=30) as c:
        ev = echo(c.get("/items/1", headers={"X-Forwarded-For": "203.0.113.9"}))["event"]
    assert ev["requestContext"]["identity"]["sourceIp"] == "127.0.0.2"
    assert ev["headers"]["X-Forwarded-For"] == "203.0.113.9, 127.0.0.2"


def test_no_route_is_api_gateways_missing_authentication_token(client):
    # without GatewayResponses in the template: API Gateway's built-in 403, for an unknown
    # path, a resource without that method, and an intermediate resource with no method
    for method, path in [
        ("GET", "/nope"),
        ("GET", "/items"),
        ("GET", "/items/1/extra"),
        ("GET", "/any"),  # {proxy+} needs at least one segment
        ("PUT", "/items/1"),
        ("GET", "/things/one/sub"),
    ]:
        r = client.request(method, path, content=b"x" if method == "PUT" else None)
        assert r.status_code == 403, (method, path)
        assert r.json() == {"message": "Missing Authentication Token"}
        assert r.headers["content-type"] == "application/json" and "allow" not in r.headers
        assert r.headers["x-amzn-errortype"] == "MissingAuthenticationTokenException"


def test_handler_exception_is_502(client, capsys):
    r = client.get("/boom")
    assert r.status_code == 502
    assert r.json() == {"message": "Internal server error"}
    err = capsys.readouterr().err
    assert "boom from the fixture handler" in err and "BoomFunction" in err
    r = client.get("/malformed")
    assert r.status_code == 502 and r.json() == {"message": "Internal server error"}
    assert "malformed" in capsys.readouterr().err


def test_payload_limit_413(gateway):
    conn = http.client.HTTPConnection(gateway.host, gateway.port, timeout=30)
    conn.putrequest("POST", "/upload")
    conn.putheader("Content-Type", "application/octet-stream")
    conn.putheader("Content-Length", str(API_GATEWAY_MAX_REQUEST_BYTES + 1))
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 413
    assert json.loads(resp.read()) == {"message": "Request Too Long"}  # no GatewayResponses: AWS's default
    conn.close()


def test_extra_routes_including_added_later(gateway, client):
    r = client.get("/dev/login?next=/x")
    assert r.status_code == 200 and r.text == "<h1>login</h1>"
    req = gateway.login_calls[-1]
    assert req.query == {"next": ["/x"]} and req.source_ip == "127.0.0.1"
    gateway.extra_routes[("POST", "/dev/echo")] = lambda req: (201, [("X-Got", req.header("x-in"))], req.body)
    r = client.post("/dev/echo", content=b"raw", headers={"X-In": "yes"})
    assert r.status_code == 201 and r.content == b"raw" and r.headers["x-got"] == "yes"


def test_concurrent_requests(client, gateway):
    def one(i: int) -> str:
        with httpx.Client(base_url=gateway.url, timeout=30) as c:
            return c.get(f"/items/{i}").json()["event"]["pathParameters"]["id"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        assert sorted(pool.map(one, range(40)), key=int) == [str(i) for i in range(40)]


def test_handler_can_reach_moto(gateway, stack):
    # boto3 inside the process sees AWS_ENDPOINT_URL and the test credentials
    ddb = boto3.client("dynamodb")
    ddb.put_item(TableName=os.environ["FIXTURE_TABLE"], Item={"pk": {"S": "a"}, "sk": {"S": "b"}, "owner": {"S": "o"}})
    got = ddb.query(
        TableName=stack["ItemsTable"]["Ref"],
        IndexName="by-owner",
        KeyConditionExpression="#o = :o",
        ExpressionAttributeNames={"#o": "owner"},
        ExpressionAttributeValues={":o": {"S": "o"}},
    )
    assert got["Count"] == 1
    ttl = ddb.describe_time_to_live(TableName=stack["ItemsTable"]["Ref"])["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


# --------------------------------------------------------------------------- events (no server)


def test_api_event_factory_direct_use():
    ev = api_event(
        ApiRequest(
            "post",
            "/partner/v1/governance/Mint1/vote",
            resource="/partner/v1/governance/{mint}/vote",
            headers={"Authorization": "Bearer x", "X-Multi": ["1", "2"]},
            query={"a": ["1", "2"], "b": "3"},
            body={"choice": "yes"},
            source_ip="10.1.2.3",
        )
    )
    assert ev["httpMethod"] == "POST"
    assert ev["pathParameters"] == {"mint": "Mint1"}
    assert ev["headers"]["Content-Type"] == "application/json"
    assert ev["headers"]["X-Multi"] == "2" and ev["multiValueHeaders"]["X-Multi"] == ["1", "2"]
    assert ev["queryStringParameters"] == {"a": "2", "b": "3"}
    assert ev["multiValueQueryStringParameters"] == {"a": ["1", "2"], "b": ["3"]}
    assert json.loads(ev["body"]) == {"choice": "yes"} and ev["isBase64Encoded"] is False
    assert ev["requestContext"]["identity"]["sourceIp"] == "10.1.2.3"
    assert ev["requestContext"]["path"] == "/api/partner/v1/governance/Mint1/vote"
    json.dumps(ev)  # serialisable

    bare = api_event(ApiRequest("GET", "/partner/v1/me"))
    assert bare["resource"] == "/partner/v1/me" and bare["pathParameters"] is None
    assert bare["headers"] is None and bare["multiValueHeaders"] is None
    assert bare["queryStringParameters"] is None and bare["body"] is None

    # the project's template.yaml BinaryMediaTypes apply by default
    mp = api_event(
        ApiRequest("POST", "/x", headers={"content-type": "multipart/form-data; boundary=b"}, body=b"\x00\x01")
    )
    assert mp["isBase64Encoded"] is True and base64.b64decode(mp["body"]) == b"\x00\x01"
    txt = api_event(ApiRequest("POST", "/x", headers={"content-type": "text/plain"}, body=b"hi"))
    assert txt["isBase64Encoded"] is False and txt["body"] == "hi"
    q = api_event(ApiRequest("GET", "/x?a=1&a=2"))
    assert q["path"] == "/x" and q["multiValueQueryStringParameters"] == {"a": ["1", "2"]}


def test_media_types_and_path_matching():
    assert is_binary_media_type("multipart/form-data; boundary=x", ["multipart~1form-data"])
    assert is_binary_media_type("IMAGE/PNG", ["image/*"])
    assert is_binary_media_type("text/plain", ["*/*"])
    assert not is_binary_media_type("application/json", ["multipart/form-data"])
    assert not is_binary_media_type(None, ["*/*"])
    assert match_path("/a/{b}", "/a/x") == {"b": "x"}
    assert match_path("/a/{b}", "/a/x/y") is None
    assert match_path("/a/{p+}", "/a/x/y") == {"p": "x/y"}
    assert match_path("/", "/") == {}


def test_lambda_context():
    ctx = lambda_context("MeFunction")
    assert ctx.function_name == "MeFunction"
    assert ctx.memory_limit_in_mb == 512
    assert ctx.invoked_function_arn == "arn:aws:lambda:us-east-1:123456789012:function:MeFunction"
    assert len(ctx.aws_request_id) == 36
    assert 28_000 < ctx.get_remaining_time_in_millis() <= 29_000


def test_gateway_routes_real_template():
    gw = Gateway(REAL_TEMPLATE)
    template = load_template(REAL_TEMPLATE)
    expected = {(e.method, e.path) for f in template.functions() for e in f.api_events}
    assert {(r.method, r.path) for r in gw.routes} == expected
    for r in gw.routes:
        route, params, _ = gw.match(r.method, r.path.replace("{", "").replace("}", ""))
        assert route is not None and route.stage == "api"
        assert "multipart/form-data" in route.binary_media_types


# --------------------------------------------------------------------------- AWS resources from the real template


def test_create_resources_real_template(moto):
    template = load_template(REAL_TEMPLATE)
    stack = create_resources(template, moto.url, parameters={"RpcUrls": "http://127.0.0.1:8899"})
    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    ddb = session.client("dynamodb", endpoint_url=moto.url)
    kms = session.client("kms", endpoint_url=moto.url)
    s3 = session.client("s3", endpoint_url=moto.url)

    assert set(template.tables()) | set(template.kms_keys()) | set(template.buckets()) <= set(stack)
    for lid, res in template.tables().items():
        name = stack[lid]["Ref"]
        assert name == f"partner-dev-{lid}"
        desc = ddb.describe_table(TableName=name)["Table"]
        props = res["Properties"]
        assert desc["KeySchema"] == props["KeySchema"]
        assert desc["BillingModeSummary"]["BillingMode"] == props.get("BillingMode", "PROVISIONED")
        ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        spec = props.get("TimeToLiveSpecification")
        if spec and spec.get("Enabled"):
            assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": spec["AttributeName"]}
        else:
            assert ttl["TimeToLiveStatus"] == "DISABLED"
    assert any(
        (r["Properties"].get("TimeToLiveSpecification") or {}).get("Enabled") for r in template.tables().values()
    )

    kinds = set()
    for lid, res in template.kms_keys().items():
        key_id = stack[lid]["Ref"]
        meta = kms.describe_key(KeyId=key_id)["KeyMetadata"]
        assert stack[lid]["Arn"] == meta["Arn"]
        spec = res["Properties"].get("KeySpec", "SYMMETRIC_DEFAULT")
        assert meta["KeySpec"] == spec and meta["KeyUsage"] == res["Properties"].get("KeyUsage", "ENCRYPT_DECRYPT")
        if spec.startswith("HMAC"):
            mac = kms.generate_mac(KeyId=key_id, Message=b"hello", MacAlgorithm="HMAC_SHA_256")["Mac"]
            assert kms.verify_mac(KeyId=key_id, Message=b"hello", MacAlgorithm="HMAC_SHA_256", Mac=mac)["MacValid"]
            kinds.add("hmac")
        elif spec == "SYMMETRIC_DEFAULT":
            dk = kms.generate_data_key(KeyId=key_id, KeySpec="AES_256")
            assert len(dk["Plaintext"]) == 32
            assert kms.decrypt(CiphertextBlob=dk["CiphertextBlob"])["Plaintext"] == dk["Plaintext"]
            kinds.add("symmetric")
    assert kinds == {"hmac", "symmetric"}

    for lid in template.buckets():
        bucket = stack[lid]["Ref"]
        assert bucket == f"partner-dev-{lid}".lower()
        s3.head_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="k", Body=b"v")
        assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    assert s3.get_public_access_block(Bucket=stack["StagingBucket"]["Ref"])["PublicAccessBlockConfiguration"][
        "BlockPublicAcls"
    ]
    rules = s3.get_bucket_lifecycle_configuration(Bucket=stack["StagingBucket"]["Ref"])["Rules"]
    assert rules[0]["Expiration"] == {"Days": 7}

    # every function's environment resolves to concrete values
    for fn in template.functions():
        env = stack.function_environment(fn)
        assert all(isinstance(v, str) for v in env.values())
        assert env["CLIENTS_TABLE"] == "partner-dev-ClientsTable"
        assert env["HASH_KEY_ID"] == stack["HashKey"]["Ref"]
        assert env["WALLET_KEY_ID"] == stack["WalletKey"]["Ref"]
        assert env["STAGING_BUCKET"] == "partner-dev-stagingbucket"
        assert env["RPC_URLS"] == "http://127.0.0.1:8899"
        assert env["PINNING_URL"] == template.parameters["PinningUrl"]["Default"]
    assert stack.environment()["AUTH_TABLE"] == "partner-dev-AuthTable"

    # idempotent: a second run reuses what exists
    again = create_resources(template, moto.url, parameters={"RpcUrls": "http://127.0.0.1:8899"})
    assert {k: v["Ref"] for k, v in again.items()} == {k: v["Ref"] for k, v in stack.items()}


def test_aws_env():
    env = aws_env("http://127.0.0.1:5000")
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:5000"
    assert env["AWS_ACCESS_KEY_ID"] == "testing" and env["AWS_SECRET_ACCESS_KEY"] == "testing"
    assert env["AWS_DEFAULT_REGION"] == "us-east-1"


def test_gateway_stop_frees_port():
    handle = start_gateway(FIXTURE_TEMPLATE, {}, port=0, log=False)
    url = handle.url
    assert httpx.get(url + "/_devstack/health").status_code == 200
    handle.stop()
    with pytest.raises(httpx.TransportError):
        httpx.get(url + "/_devstack/health", timeout=2)
    assert not any(t.name == f"devstack-gateway-{handle.port}" and t.is_alive() for t in threading.enumerate())


def test_unknown_methods_get_the_templates_not_found_not_a_501_page(tmp_path):
    import http.client

    from devstack.gateway import start_gateway

    handle = start_gateway(REAL_TEMPLATE, {}, port=0, log=False)
    try:
        for method in ("TRACE", "CONNECT", "BREW"):
            conn = http.client.HTTPConnection(handle.host, handle.port, timeout=10)
            conn.request(method, "/oauth/token")
            response = conn.getresponse()
            body = response.read()
            assert response.status == 404, (method, response.status, body[:200])
            assert json.loads(body)["error"] == "not_found"
            conn.close()
    finally:
        handle.stop()
