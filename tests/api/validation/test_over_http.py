"""Kind validation through the server: a 422 `Invalid` Status with upstream's causes, and nothing stored."""

from __future__ import annotations

import copy

import pytest

from tests.api.validation.test_certificates import CSR
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT
from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def test_invalid_pod_is_422_with_causes_and_not_stored(api) -> None:
    pod = copy.deepcopy(POD)
    pod["spec"]["restartPolicy"] = "Sometimes"
    pod["spec"]["containers"][0]["ports"][0]["containerPort"] = 0
    response = api.request("POST", PODS, body=pod)
    assert response.status == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        'Pod "web" is invalid: [spec.containers[0].ports[0].containerPort: Required value, '
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]'
    )
    assert status["details"] == {
        "name": "web",
        "kind": "Pod",
        "causes": [
            {
                "reason": "FieldValueRequired",
                "message": "Required value",
                "field": "spec.containers[0].ports[0].containerPort",
            },
            {
                "reason": "FieldValueNotSupported",
                "message": 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
                "field": "spec.restartPolicy",
            },
        ],
    }
    assert api.request("GET", PODS).json()["items"] == []


def test_metadata_errors_come_before_the_kind_rules(api) -> None:
    pod = copy.deepcopy(POD)
    pod["metadata"]["name"] = "Web"
    pod["spec"]["containers"] = []
    causes = api.request("POST", PODS, body=pod).json()["details"]["causes"]
    assert [cause["field"] for cause in causes] == ["metadata.name", "spec.containers"]


def test_refused_pod_update_leaves_the_stored_pod(api) -> None:
    stored = api.request("POST", PODS, body=POD).json()
    changed = copy.deepcopy(stored)
    changed["spec"]["restartPolicy"] = "Never"
    response = api.request("PUT", f"{PODS}/web", body=changed)
    assert response.status == 422
    assert response.json()["details"]["causes"][0]["field"] == "spec"
    message = response.json()["message"]
    assert message.startswith('Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than ')
    # the stored pod went through defaulting, so the whole internal spec is there to diff
    assert "\n@@ -" in message
    assert '\n- "RestartPolicy": "Always",\n+ "RestartPolicy": "Never",\n' in message
    assert api.request("GET", f"{PODS}/web").json()["spec"]["restartPolicy"] == "Always"


def test_allowed_pod_update_is_stored(api) -> None:
    stored = api.request("POST", PODS, body=POD).json()
    stored["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert api.request("PUT", f"{PODS}/web", body=stored).status == 200


def test_deployment_message_names_the_group(api) -> None:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["replicas"] = -1
    status = api.request("POST", DEPLOYMENTS, body=deployment).json()
    assert status["message"] == (
        'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'
    )
    assert status["details"]["group"] == "apps"


def test_deployment_selector_change_is_refused_by_patch(api) -> None:
    assert api.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    patch = {
        "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": {"metadata": {"labels": {"app": "api"}}}}
    }
    response = api.request("PATCH", f"{DEPLOYMENTS}/web", body=patch, content_type="application/merge-patch+json")
    assert response.status == 422
    assert response.json()["message"] == (
        'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"api"}}: '
        "field is immutable"
    )


MISMATCHED_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
"""


def test_kubectl_prints_the_invalid_message(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    result = kubectl.run("create", "-f", "-", stdin=MISMATCHED_DEPLOYMENT, check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"api"}: '
        "`selector` does not match template `labels`"
    )
    assert kubectl.run("get", "deployment", "web", check=False).returncode == 1


def test_invalid_certificate_request_is_422_and_not_stored(api) -> None:
    csr = copy.deepcopy(CSR)
    csr["spec"]["request"] = "aGVsbG8="
    csr["spec"]["signerName"] = "example.com"
    response = api.request("POST", CSRS, body=csr)
    assert response.status == 422
    assert response.json()["message"] == (
        'CertificateSigningRequest.certificates.k8s.io "demo" is invalid: '
        '[spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST, '
        'spec.signerName: Invalid value: "example.com": must be a fully qualified domain '
        "and path of the form 'example.com/signer-name']"
    )
    assert api.request("GET", CSRS).json()["items"] == []


def test_valid_certificate_request_is_created(api) -> None:
    assert api.request("POST", CSRS, body=CSR).status == 201


SERVICE_ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Robot", f'Invalid value: "Robot": {_SUBDOMAIN}'),
        ("robot_1", f'Invalid value: "robot_1": {_SUBDOMAIN}'),
        ("robot.", f'Invalid value: "robot.": {_SUBDOMAIN}'),
        ("r" * 254, f'Invalid value: "{"r" * 254}": must be no more than 253 characters'),
    ],
    ids=["upper case", "underscore", "trailing dot", "too long"],
)
def test_invalid_service_account_name_is_422_and_not_stored(api, name: str, message: str) -> None:
    """Upstream's ServiceAccount validation is its metadata's, the name a DNS subdomain."""
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
    response = api.request("POST", SERVICE_ACCOUNTS, body=body)
    assert response.status == 422
    causes = response.json()["details"]["causes"]
    assert [(cause["field"], cause["reason"]) for cause in causes] == [("metadata.name", "FieldValueInvalid")]
    assert causes[0]["message"] == message
    assert api.request("GET", SERVICE_ACCOUNTS).json()["items"] == []


def test_a_service_account_name_may_be_a_dotted_subdomain(api) -> None:
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot.v2"}}
    assert api.request("POST", SERVICE_ACCOUNTS, body=body).status == 201


NAMESPACES = "/api/v1/namespaces"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("team.a", 'Invalid value: "team.a": must not contain dots'),
        ("Team", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"),
        ("t" * 64, "must be no more than 63 characters"),
    ],
    ids=["dotted", "upper case", "too long"],
)
def test_invalid_namespace_name_is_422_and_not_stored(api, name: str, message: str) -> None:
    """Upstream's Namespace name is a DNS label (a subdomain with a dot says only that)."""
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    response = api.request("POST", NAMESPACES, body=body)
    assert response.status == 422
    causes = response.json()["details"]["causes"]
    assert [(cause["field"], cause["reason"]) for cause in causes] == [("metadata.name", "FieldValueInvalid")]
    assert message in causes[0]["message"]
    assert api.request("GET", f"{NAMESPACES}/{name}").status == 404
