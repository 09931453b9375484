"""Stage 4, verdicts: integrate until a tail lemma holds, judge a theorem's conclusion,
and write the certificate.

* :mod:`~certified.verdict.certify` — :func:`certify` (the lemma search, deterministic
  budgets in t and bits);
* :mod:`~certified.verdict.judge` — a theorem's conclusion from Lemma T4's conclusions;
* :mod:`~certified.verdict.certificate` — the certificate JSON and its SHA-256 digest;
* :mod:`~certified.verdict.picture` — what ``verify --plot`` draws (floats: a picture).

The certificate is re-checked by :mod:`certified.checker`, which imports nothing above.
"""
