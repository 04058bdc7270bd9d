"""`kubectl auth can-i` answered by a Webhook authorizer (a real HTTPS SubjectAccessReview service)."""

from __future__ import annotations

from tests.apiserver.authz.sar_peer import serve_sar_webhook
from tests.e2e.kubectl_runner import Kubectl


def _answer(review):
    attributes = review["spec"].get("resourceAttributes", {})
    if review["spec"]["user"] == "carol" and attributes.get("resource") == "pods":
        if attributes.get("verb") in ("get", "list"):
            return {"allowed": True}
        return {"allowed": False, "denied": True, "reason": "carol only reads pods"}
    return {"allowed": False}


def test_kubectl_auth_can_i_through_the_webhook(svc_server_factory, kubectl_binary, tmp_path):
    with serve_sar_webhook(_answer, tmp_path) as webhook:
        kubeconfig = webhook.write_kubeconfig(tmp_path / "sar.kubeconfig")
        server = svc_server_factory(
            "--brand-profile=kubernetes",
            "--authorization-mode=Webhook,RBAC",
            f"--authorization-webhook-config-file={kubeconfig}",
        )
        kubectl = Kubectl(kubectl_binary, server.kubeconfig)
        allowed = kubectl.run("auth", "can-i", "list", "pods", "--as=carol", check=False)
        denied = kubectl.run("auth", "can-i", "delete", "pods", "--as=carol", check=False)
        other = kubectl.run("auth", "can-i", "list", "secrets", "--as=carol", check=False)
    assert allowed.stdout.strip() == "yes"
    assert (denied.stdout.strip(), denied.returncode) == ("no - carol only reads pods", 1)
    assert (other.stdout.strip(), other.returncode) == ("no", 1)
    assert {review["spec"]["user"] for review in webhook.reviews} == {"carol"}
