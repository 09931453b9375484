"""The paper's bridges to practice: Ginibre genericity and trained weights.

* :mod:`certified.practice.leading` – the proved class of the leading eigenvalue of large
  matrices with float entries (Gershgorin on a verified similarity, Arb, exact);
* :mod:`certified.practice.ginibre` – how often Definition 4.1(i) holds for real Ginibre
  matrices, sample by sample proved, with Wilson intervals;
* :mod:`certified.practice.weights` – a trained transformer's heads, classified exactly;
* :mod:`certified.practice.forward` – its forward pass on real text and each head alone in
  the idealized model (approximate measurements).
"""
