"""The LLM phase of the security audit (spec FR-4.5 to FR-4.8, FR-4.12).

The prioritizer's top files, within a token budget (:mod:`.plan`), go to analyzers for
authentication/authorization, taint across functions, business logic, cryptography and
concurrency (:mod:`.catalog`: a Markdown prompt and a JSON Schema each, package data). The
model's answers are untrusted: they are schema-checked with bounded re-asks
(``providers.structured``), then every finding's path, lines and text are checked against
what was sent (:mod:`.intake`). Accepted findings are merged with the static ones and fed to
the attack-chain correlator (:mod:`.merge`). :func:`.phase.run_llm_phase` ties it together;
the provider is passed in (this package sits below ``app``).
"""
