"""One side of a comparison as a long-lived process, loaded once, answering one measurement per
request (protocol.py). The official sides run in their own torch environment: this package and
what it imports need only numpy and the standard library there."""
