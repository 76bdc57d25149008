"""Rifugio's rule terms in Dutch, German and Italian, as the game's own rulebook words them.

Source: the four-language rulebook of Rifugio (Niels Ramon Pieterse, NRP Games), transcribed in
/work/shared/seeds/rifugio-rulebook.txt (sections NL "HET SPEL", EN "THE GAME", DE "DAS SPIEL",
IT "IL GIOCO"). Keys are the English words the engine writes (engine/games/rifugio/text.py,
tiles.py, rules.py, draw.py) and pbem/web/terms.py, lowercase. Where that English differs from
the English rulebook's (lay/connect, walker/puppet, hut card/Rifugio-point-card, ...), the
translators' glossary written alongside this module (/tmp/rifugio_glossary.md) says so, and
cites the exact forms that occur in each edition.

Values are the base form (nominative; infinitive for verbs) of the word each edition uses, in
the number of the English key; where the text only has an inflected form (German "Wasserfällen",
"Rifugio-Punkten"; Dutch "ingangen" for "entrance") the glossary cites it. Capitals are the
rulebook's: terrain names are capitalised as rule terms in every edition ("Gras", "Bos",
"Rots"; "Prato", "Bosco", "Roccia"), card names as in the running text ("Extra-Stap-Kaart",
"Extra-Schritt-Karte", "Carta-Mossa-Extra", "Carta Punti Rifugio").

``TERMS``: English term -> {"nl", "de", "it"}. ``PLURALS``: English singular term -> the plural
in each language whose text uses one (an edition that never uses the plural is left out, so an
entry may have fewer than three languages). ``UNATTESTED``: English words of the engine or pbem
for which no edition has a word (our digest's names, the notation, the server's own devices);
a translator has to coin these. Data only: no tests here.
"""

from __future__ import annotations

TERMS: dict[str, dict[str, str]] = {
    # -- components: tiles and landscape -------------------------------------------------------
    "tile": {"nl": "tegel", "de": "Feld", "it": "tessera"},
    "terrain tile": {"nl": "landschapstegel", "de": "Landschaftsfeld", "it": "tessera paesaggio"},
    "start tile": {"nl": "Rifugio-starttegel", "de": "Startfeld",
                   "it": "Tessera di Partenza di RIFUGIO"},
    "landscape": {"nl": "landschap", "de": "Landschaft", "it": "paesaggio"},
    "grass": {"nl": "Gras", "de": "Gras", "it": "Prato"},
    "forest": {"nl": "Bos", "de": "Wald", "it": "Bosco"},
    "rock": {"nl": "Rots", "de": "Fels", "it": "Roccia"},
    "mountain top": {"nl": "bergtop", "de": "Berggipfel", "it": "cima"},
    "mountain tops": {"nl": "bergtoppen", "de": "Berggipfel", "it": "cime"},
    "pass": {"nl": "pas", "de": "Pass", "it": "passo"},
    "passes": {"nl": "passen", "de": "Pässe", "it": "passi"},
    "pass tile": {"nl": "pastegel", "de": "Pass-Feld", "it": "tessera Passo"},
    "entrance": {"nl": "ingang", "de": "Passrichtung", "it": "ingresso"},
    "side": {"nl": "zijde", "de": "Anschluss", "it": "lato"},
    "flowers": {"nl": "bloemen", "de": "Blumen", "it": "fiori"},
    "animals": {"nl": "dieren", "de": "Tiere", "it": "animali"},
    "waterfalls": {"nl": "watervallen", "de": "Wasserfälle", "it": "cascate"},
    "butterfly": {"nl": "vlinder", "de": "Schmetterling", "it": "farfalla"},
    "bear": {"nl": "beer", "de": "Bär", "it": "orso"},
    # -- components: pieces and cards ----------------------------------------------------------
    "walker": {"nl": "poppetje", "de": "Spielfigur", "it": "escursionista"},
    "hut": {"nl": "hut", "de": "Hütte", "it": "rifugio"},
    "mountain hut": {"nl": "berghut", "de": "Berghütte", "it": "rifugio"},
    "Rifugio": {"nl": "Rifugio", "de": "Rifugio", "it": "Rifugio"},
    "point card": {"nl": "puntenkaart", "de": "Punktekarte", "it": "carta punti"},
    "hut card": {"nl": "Rifugio-puntenkaart", "de": "Rifugio-Punktekarte",
                 "it": "Carta Punti Rifugio"},
    "bear card": {"nl": "Beer-puntenkaartje", "de": "Bären-Punktekarte", "it": "Carta Punti Orso"},
    "extra-step card": {"nl": "Extra-Stap-Kaart", "de": "Extra-Schritt-Karte",
                        "it": "Carta-Mossa-Extra"},
    "open tile": {"nl": "open tegel", "de": "offenes Landschaftsfeld", "it": "tessera scoperta"},
    "blind tile": {"nl": "gesloten tegel", "de": "verdeckt liegendes Landschaftsfeld",
                   "it": "tessera coperta"},
    "open display": {"nl": "open liggende tegels", "de": "offen liegende Landschaftsfelder",
                     "it": "tessere scoperte"},
    "blind pile": {"nl": "gesloten tegels", "de": "verdeckt liegende Landschaftsfelder",
                   "it": "tessere coperte"},
    "face down": {"nl": "gesloten", "de": "verdeckt", "it": "coperta"},
    "colour": {"nl": "kleur", "de": "Farbe", "it": "colore"},
    # -- the turn: phases and actions ----------------------------------------------------------
    "turn": {"nl": "beurt", "de": "Zug", "it": "turno"},
    "take": {"nl": "kiezen", "de": "nehmen", "it": "scegliere"},
    "lay": {"nl": "aanleggen", "de": "anlegen", "it": "collegare"},
    "refill": {"nl": "aanvullen", "de": "auffüllen", "it": "reintegrare"},
    "swap": {"nl": "ruilen", "de": "tauschen", "it": "scambiare"},
    "walk": {"nl": "lopen", "de": "laufen", "it": "camminare"},
    "step": {"nl": "stap", "de": "Schritt", "it": "mossa"},
    "bonus step": {"nl": "extra stap", "de": "Extra Schritt", "it": "mossa extra"},
    "build": {"nl": "bouwen", "de": "bauen", "it": "costruire"},
    "visit": {"nl": "bezoeken", "de": "besuchen", "it": "visitare"},
    "first visitor": {"nl": "eerste bezoeker", "de": "erste Gipfelbesteiger",
                      "it": "primo escursionista"},
    "hike": {"nl": "wandeling", "de": "Wanderung", "it": "escursione"},
    # -- scoring and the end -------------------------------------------------------------------
    "point": {"nl": "punt", "de": "Punkt", "it": "punto"},
    "points": {"nl": "punten", "de": "Punkte", "it": "punti"},
    "score": {"nl": "punten", "de": "Punktzahl", "it": "punti"},
    "hut points": {"nl": "Rifugio punten", "de": "Rifugio-Punkte", "it": "punti Rifugio"},
    "set": {"nl": "set", "de": "Reihe", "it": "set"},
    "bonus points": {"nl": "bonus punten", "de": "Extrapunkte", "it": "punti bonus"},
    "penalty points": {"nl": "minpunten", "de": "Strafpunkte", "it": "punti negativi"},
    "player": {"nl": "speler", "de": "Spieler", "it": "giocatore"},
    "opponent": {"nl": "medespeler", "de": "Mitspieler", "it": "avversario"},
    "win": {"nl": "winnen", "de": "gewinnen", "it": "vincere"},
    "tie": {"nl": "gelijkspel", "de": "Unentschieden", "it": "pareggio"},
    "game over": {"nl": "het spel is afgelopen", "de": "das Spiel ist zu Ende",
                  "it": "il gioco termina"},
    "game end": {"nl": "einde van het spel", "de": "Spielende", "it": "fine del gioco"},
    "clockwise": {"nl": "met de klok mee", "de": "im Uhrzeigersinn", "it": "in senso orario"},
}

PLURALS: dict[str, dict[str, str]] = {
    "tile": {"nl": "tegels", "de": "Felder", "it": "tessere"},
    "terrain tile": {"nl": "landschapstegels", "de": "Landschaftsfelder",
                     "it": "tessere paesaggio"},
    "start tile": {"nl": "Rifugio-Starttegels"},
    "rock": {"it": "Rocce"},
    "mountain top": {"nl": "bergtoppen", "de": "Berggipfel", "it": "cime"},
    "pass": {"nl": "passen", "de": "Pässe", "it": "passi"},
    "pass tile": {"de": "Pass-Felder", "it": "tessere Passo"},
    "entrance": {"nl": "ingangen", "it": "ingressi"},
    "side": {"de": "Anschlüsse"},
    "bear": {"nl": "beren", "de": "Bären", "it": "orsi"},
    "walker": {"nl": "poppetjes", "de": "Spielfiguren", "it": "escursionisti"},
    "hut": {"nl": "hutten", "de": "Hütten", "it": "Rifugi"},
    "mountain hut": {"nl": "berghutten", "de": "Berghütten"},
    "Rifugio": {"nl": "RIFUGIO", "de": "RIFUGI", "it": "Rifugi"},
    "point card": {"nl": "puntenkaarten", "de": "Punktekarten", "it": "carte punti"},
    "hut card": {"nl": "Rifugio-puntenkaarten", "de": "Rifugio-Punktekarten",
                 "it": "Carte Punti Rifugio"},
    "extra-step card": {"nl": "Extra-Stap-Kaarten", "de": "Extra-Schritt-Karten",
                        "it": "Carte-Mossa-Extra"},
    "open tile": {"nl": "open tegels", "de": "offenen Felder", "it": "tessere scoperte"},
    "blind tile": {"nl": "gesloten tegels", "it": "tessere coperte"},
    "turn": {"nl": "beurten", "it": "turni"},
    "step": {"nl": "stappen", "de": "Schritte", "it": "mosse"},
    "player": {"nl": "spelers", "de": "Spieler", "it": "giocatori"},
    "opponent": {"nl": "tegenstanders", "it": "avversari"},
    "set": {"de": "Reihen"},
}

# English words the engine or pbem uses that no edition of the rulebook has (coin these).
UNATTESTED: tuple[str, ...] = (
    "summit",  # the engine's terrain letter S; the rulebook only has the mountain-top tiles
    "top",  # engine tile names "top 1".."top 3"; the rulebook says mountain top
    "gentian", "alpine rose", "edelweiss",  # our digest's names for the three flowers
    "marmot", "ibex",  # our digest's names for two of the animals (only the butterfly is named)
    "plain tile",  # grass, forest or rock with no feature
    "start hut",  # pbem/web/terms.py; the rulebook has only the start tile
    "free step",  # rulebook: "one of the two steps you've got each turn"
    "rotation", "turn the tile",  # the rulebook never mentions turning a tile
    "hand", "taken", "set aside", "open place",  # the server's own states
    "shared win",  # the rulebook breaks ties on hut points and says no more
    "Red", "Blue", "Yellow", "Purple", "Green",  # seat colours: the rulebook names none
)
