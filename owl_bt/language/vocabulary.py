"""The offline grounder's vocabulary: relations, actions, an object-category ontology, filler words.

Words outside this vocabulary and the scene's own names are reported, never guessed at.
"""

from __future__ import annotations

# phrase (space-separated, lower case) → relation
RELATIONS = {
    "on top of": "ontop", "onto": "ontop", "on to": "ontop", "on": "ontop", "atop": "ontop", "upon": "ontop",
    "into": "inside", "in": "inside", "inside": "inside", "inside of": "inside", "within": "inside",
}
ACTIONS = {"put", "place", "move", "set", "lay", "drop", "bring", "transfer", "get", "take", "pick", "stick"}
# category → member categories (an object's own category always matches itself)
ONTOLOGY = {
    "fruit": {"strawberry", "apple", "pear", "lemon", "orange", "plum", "peach", "banana", "lime"},
    "citrus": {"lemon", "orange", "lime"},
    "berry": {"strawberry"},
    "cutlery": {"fork", "knife", "spoon"},
    "condiment": {"mustard_bottle", "ketchup"},
    "container": {"mug", "bowl", "cup", "bin", "basket"},
    "can": {"potted_meat_can", "tomato_soup_can"},
    "surface": {"region", "plate", "mat", "tray", "table"},
}
# nouns the grounder knows as objects; one named here but absent from the scene is reported
KNOWN_NOUNS = {
    "strawberry", "apple", "pear", "lemon", "orange", "plum", "peach", "banana", "lime", "fork", "knife",
    "spoon", "mug", "cup", "bowl", "plate", "skillet", "pan", "sponge", "hammer", "drill", "can", "box",
    "bottle", "ball", "mat", "tray", "bin", "basket", "region", "table", "line", "block", "cube",
}
PLURALS = {"strawberries": "strawberry", "berries": "berry", "cherries": "cherry", "knives": "knife",
           "boxes": "box", "peaches": "peach", "fruits": "fruit"}
LOCATION_WORDS = {"center", "centre", "middle", "edge", "side", "corner", "top", "surface", "area", "spot"}
FILLER = {
    "the", "a", "an", "of", "at", "to", "please", "can", "could", "you", "would", "and", "it", "its",
    "that", "this", "there", "gently", "carefully", "now", "up", "down", "down,", "for", "me", "kindly",
    "just", "simply", "so", "is", "be", "should", "with", "from", "table's", "colored", "coloured", "one",
}
COLOURS = {"red", "green", "blue", "yellow", "white", "black", "grey", "gray", "light", "dark", "brown",
           "orange", "purple", "pink"}


def singular(word: str) -> str:
    """Crude English singular for object nouns."""
    if word in PLURALS:
        return PLURALS[word]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word
