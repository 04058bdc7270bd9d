"""MutatingAdmissionWebhook and ValidatingAdmissionWebhook: admission decided by HTTPS servers named
in Mutating/ValidatingWebhookConfiguration objects, as upstream's `plugin/webhook` packages do.

One job per module: `hooks` follows the configurations, `conditions` evaluates matchConditions,
`review` writes AdmissionReview requests and reads their responses, `versions` converts objects to
the version a rule matched, `calls` decides whether and how one webhook is called, and `mutating` /
`validating` are the two plugins.
"""
