"""CEL admission policies: ValidatingAdmissionPolicy and MutatingAdmissionPolicy with their bindings.

One module per job: `source` follows policies and bindings from the watch caches and recompiles
what changed; `expressions` compiles a policy's CEL; `request` builds the `request` variable;
`params` finds a binding's parameter objects; `validating` and `mutating` are the two plugins;
`type_checking` writes `status.typeChecking` for validating policies.
"""
