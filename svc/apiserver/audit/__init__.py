"""Auditing (upstream `k8s.io/apiserver/pkg/audit`): a policy decides how much of each request is
recorded, the audit filter builds `audit.k8s.io/v1` Events, backends write them."""
