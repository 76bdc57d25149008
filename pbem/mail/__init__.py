"""Email: building MIME messages from outbox rows, board pictures, delivery, the dev catcher."""
