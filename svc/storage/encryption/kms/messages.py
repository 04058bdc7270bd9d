"""The KMS v2 protobuf messages, built at run time (see `svc.machinery.proto_messages`).

Two upstream files in one package `v2`: the plugin API (`k8s.io/kms/apis/v2/api.proto`, service
`v2.KeyManagementService`: Status, Decrypt, Encrypt) and the `EncryptedObject` a KMS v2 value holds
after its prefix (the API server's kmsv2 `api.proto`). Names and field numbers are upstream's, so
existing plugins answer and values written by kube-apiserver read back.
"""

from __future__ import annotations

from svc.machinery.proto_messages import build_messages

SERVICE = "v2.KeyManagementService"
_MESSAGES = build_messages(
    "v2",
    {
        "StatusRequest": [],
        "StatusResponse": [("version", 1, "string"), ("healthz", 2, "string"), ("key_id", 3, "string")],
        "DecryptRequest": [
            ("ciphertext", 1, "bytes"),
            ("uid", 2, "string"),
            ("key_id", 3, "string"),
            ("annotations", 4, "map<string,bytes>"),
        ],
        "DecryptResponse": [("plaintext", 1, "bytes")],
        "EncryptRequest": [("plaintext", 1, "bytes"), ("uid", 2, "string")],
        "EncryptResponse": [
            ("ciphertext", 1, "bytes"),
            ("key_id", 2, "string"),
            ("annotations", 3, "map<string,bytes>"),
        ],
        "EncryptedObject": [
            ("encryptedData", 1, "bytes"),
            ("keyID", 2, "string"),
            ("encryptedDEKSource", 3, "bytes"),
            ("annotations", 4, "map<string,bytes>"),
            ("encryptedDEKSourceType", 5, "EncryptedDEKSourceType"),
        ],
    },
    {"EncryptedDEKSourceType": {"AES_GCM_KEY": 0, "HKDF_SHA256_XNONCE_AES_GCM_SEED": 1}},
)
StatusRequest = _MESSAGES["StatusRequest"]
StatusResponse = _MESSAGES["StatusResponse"]
DecryptRequest = _MESSAGES["DecryptRequest"]
DecryptResponse = _MESSAGES["DecryptResponse"]
EncryptRequest = _MESSAGES["EncryptRequest"]
EncryptResponse = _MESSAGES["EncryptResponse"]
EncryptedObject = _MESSAGES["EncryptedObject"]
AES_GCM_KEY = _MESSAGES["EncryptedDEKSourceType"].AES_GCM_KEY
HKDF_SHA256_XNONCE_AES_GCM_SEED = _MESSAGES["EncryptedDEKSourceType"].HKDF_SHA256_XNONCE_AES_GCM_SEED
METHODS = {
    "Status": (StatusRequest, StatusResponse),
    "Decrypt": (DecryptRequest, DecryptResponse),
    "Encrypt": (EncryptRequest, EncryptResponse),
}
"""Each method of the service: (request class, response class)."""
