"""Reading what a check needs from disk: drafts, context files, structured records, pairing, discovery."""
