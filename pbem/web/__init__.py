"""The web pages, one small blueprint each (see pbem.create_app)."""
