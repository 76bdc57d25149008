"""The analysis board: from any position a player or a visitor may see, play moves for every
side, step back and forward, and branch, without sending anything (issue 34).

The line lives in the page's address (``line=G5xF4;B1-C2&at=1``), so the board works without
JavaScript, survives a reload and can be bookmarked or shared; :mod:`~pbem.analysis.line`
reads it back, move by move, from a position that holds nothing the viewer may not know.
The pages are ``pbem.web.analysis``.
"""
