"""Checkers: models that judge a draft sentence against context windows."""
