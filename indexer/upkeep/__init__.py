"""Upkeep: what is derived from a collection's chunks after a sync. The routing synopsis (``synopsis``,
kept by ``synopsis_upkeep``: centroids and word counts, which the KIMAs paper's knowledge router reads),
each document's card and outline (``cards``), the entity index (``entity_upkeep``) and the optional
relation pass with a chat model (``relation_pass``)."""
