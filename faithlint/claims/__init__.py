"""Claim-level checking: split a draft sentence into (subject, predicate, object) triplets and check each."""
