"""Play by reply: mail that comes back to pbem.

A player answers the email about their turn with a move or a command. The pieces:

- :mod:`pbem.reply_addresses` (below the services, which write the addresses into every email):
  the signed, case-insensitive tokens in reply addresses (``play+TOKEN@...``), in the game's
  Message-IDs and in the VERP return path (``bounce+TOKEN@...``); the address is the credential,
  as the signed links are.
- ``reading``: what a reply says: its new text without quotes and signatures, and the move, note
  or command in it; with ``words`` (the command words in each language) and ``html_text`` (the
  text of an HTML-only reply).
- ``robots``, ``bounces``: telling robots from people, and reading delivery reports.
- ``smtp``, ``imap``: receiving mail (``pbem inbound``, ``pbem fetch-mail``). Signing what we
  send (DKIM) is :mod:`pbem.mail.dkim`.
- ``service``: the transaction that handles one message, with ``commands`` (moves and commands),
  ``answers`` (receipts and refusals) and ``bouncing`` (the outbox side of a bounce).

``reading``, ``words``, ``html_text``, ``robots``, ``bounces``, ``smtp`` and ``imap`` know no
database or Flask.
"""
