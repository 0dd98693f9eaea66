"""The draft as text: Markdown and front matter, suppressions, sentences, checkable units, positions."""
