"""The offline grounder's vocabulary: relations, quantifiers, sequencing, actions, an object-category
ontology, superlatives and filler words. Words outside it and the scene's own names are reported,
never guessed at.
"""

from __future__ import annotations

# phrase (space-separated, lower case) → relation. Support relations say where the object rests;
# spatial ones constrain where on its support; `between` takes two references.
SUPPORT = {
    "on top of": "ontop",
    "onto": "ontop",
    "on to": "ontop",
    "on": "ontop",
    "atop": "ontop",
    "upon": "ontop",
    "into": "inside",
    "in": "inside",
    "inside": "inside",
    "inside of": "inside",
    "within": "inside",
}
RELATIONS = (
    SUPPORT  # the name the speech grammar (owl_bt.speech.grammar) reads the support phrases by
)
SPATIAL = {
    "near": "near",
    "next to": "near",
    "beside": "near",
    "close to": "near",
    "by": "near",
    "nearby": "near",
    "left of": "left_of",
    "to the left of": "left_of",
    "on the left of": "left_of",
    "on the left side of": "left_of",
    "right of": "right_of",
    "to the right of": "right_of",
    "on the right of": "right_of",
    "on the right side of": "right_of",
    "behind": "behind",
    "in back of": "behind",
    "in front of": "in_front_of",
    "between": "between",
    "in between": "between",
    "aligned with": "aligned",
    "in line with": "aligned",
    "left side of": "left_of",
    "to the left side of": "left_of",
    "right side of": "right_of",
    "to the right side of": "right_of",
    "right next to": "near",
    "right beside": "near",
    "right by": "near",
    "to its left": "left_of",
    "on its left": "left_of",
    "to its right": "right_of",
    "on its right": "right_of",
    "where": "at_initial",  # "where X is initially / was / started"
    "away from": "off",
    "clear of": "off",
    "far from": "apart",
    "far away from": "apart",
    "a long way from": "apart",
    "closer to": "near",
    "nearer to": "near",
    "nearer": "near",
    "closer": "near",
}
# "every fruit except the apple", "the lemon, not the lime": the object after it is left out
EXCEPT = {"except", "excluding", "not"}
EXCEPT_PHRASES = {"other than", "apart from", "except for", "but not", "and not"}
# where an object comes from ("take the apple from the plate"): the object after it is neither moved
# nor a destination; with no destination, the object is taken off it onto the table
SOURCE = {
    "from": "from",
    "off": "from",
    "off of": "from",
    "out of": "from",
    "from inside": "from",
    "from on top of": "from",
}
# "bring the lime to the plate": into a container, onto a surface, else next to it
TOWARDS = {"to", "toward", "towards"}
# verbs that only take hold of something; a later clause says where it goes ("pick up the apple and …")
PICK_VERBS = {"pick", "grab", "grasp", "lift", "take", "get", "fetch", "collect", "hold"}
# relations that need no reference object: a part of the table in the robot's frame (+x away from its base,
# +y to its left). A bare one ("to the right", "at the back") on another support means that half of it; "… of
# the table" and the robot's own nearness always mean the table's part
ABSOLUTE = {
    "far left": "far_left",
    "far right": "far_right",
    "left side": "far_left",
    "right side": "far_right",
    "on the left": "far_left",
    "on the right": "far_right",
    "to the left": "far_left",
    "to the right": "far_right",
    "at the back": "back",
    "in the back": "back",
    "to the back": "back",
    "at the front": "front",
    "in the front": "front",
    "to the front": "front",
    "near the robot": "front",
    "close to the robot": "front",
    "closer to the robot": "front",
    "next to the robot": "front",
    "far from the robot": "back",
    "away from the robot": "back",
    "farther from the robot": "back",
    "further from the robot": "back",
}
DIRECTION = {
    "far_left": "left_of",
    "far_right": "right_of",
    "back": "behind",
    "front": "in_front_of",
}  # of an object
HALF = {
    "far_left": "half_left",
    "far_right": "half_right",
    "back": "half_back",
    "front": "half_front",
}  # of a support
ROBOT_FRAME = {
    p for p in ABSOLUTE if "robot" in p
}  # read before "near", "away from": the robot is no scene object
ORIENTATION = {
    "upside down": "upside_down",
    "bottom up": "upside_down",
    "opening down": "upside_down",
    "facing down": "upside_down",
    "upright": "upright",
    "right side up": "upright",
    "standing": "upright",
    "standing up": "upright",
    "facing up": "upright",
    "opening up": "upright",
    "the right way up": "upright",
    "right way up": "upright",
    "on its base": "upright",
    "on its bottom": "upright",
}
INITIALLY = {
    "initially",
    "originally",
    "was",
    "were",
    "started",
    "starts",
    "is",
    "are",
    "before",
    "at",
    "first",
    "the",
    "start",
}

ACTIONS = {
    "put",
    "place",
    "move",
    "set",
    "lay",
    "drop",
    "bring",
    "transfer",
    "get",
    "take",
    "pick",
    "stick",
    "pack",
    "serve",
    "stack",
    "arrange",
    "position",
    "load",
    "return",
    "store",
    "keep",
    "leave",
    "insert",
    "putting",
    "placing",
    "moving",
    "setting",
    "packing",
    "fill",
    "grab",
    "grasp",
    "lift",
    "fetch",
    "collect",
    "hold",
    "carry",
    "relocate",
    "shift",
}
POUR = {"pour", "pouring", "empty", "tip"}
DISCARD = {"throw", "discard", "bin", "trash", "dispose"}  # "throw away": into a bin-like container
REMOVE = {"remove", "clear", "take off", "get rid"}
SETUP = {"setup", "set up", "stand", "upright"}
TURN = {"turn", "flip", "rotate"}  # "turn the mug right side up": the orientation phrase says how
# verbs whose meaning the rest of the clause gives ("cook the strawberry by putting it in the pan")
BY_VERBS = {
    "cook",
    "heat",
    "warm",
    "wash",
    "clean",
    "prepare",
    "tidy",
    "organize",
    "organise",
    "sort",
}


def _inflected(verbs: set[str]) -> set[str]:
    """The verbs with their -s, -ing and -ed forms ("serves", "serving", "served"; "putting", "dropped",
    "carried")."""
    out = set(verbs)
    vowels = set("aeiou")
    for v in (
        v for v in verbs if " " not in v and not (v.endswith("ing") and len(v) > 5)
    ):  # not "putting"
        if v.endswith("y") and v[-2] not in vowels:  # carry → carries, carried
            out |= {v[:-1] + "ies", v + "ing", v[:-1] + "ied"}
            continue
        short = (
            len(v) <= 4 and v[-1] in "bdgmnpt" and v[-2] in vowels and v[-3] not in vowels
        )  # put → putting
        base = v + v[-1] if short else v[:-1] if v.endswith("e") and not v.endswith("ee") else v
        out |= {
            v + ("es" if v.endswith(("s", "sh", "ch", "x")) else "s"),
            base + "ing",
            v + "d" if v.endswith("e") else base + "ed",
        }
    return out


# the verbs as the reader meets them, inflected (the speech grammar hears only the base forms above)
ACTION_FORMS = _inflected(ACTIONS)
POUR_FORMS = _inflected(POUR)
BY_FORMS = _inflected(BY_VERBS)
STATE_OPENERS = {
    "make sure",
    "ensure",
    "have",
    "let",
    "so",
    "so that",
    "such that",
    "keeping",
    "with",
}
INTENT_OPENERS = (
    "i want to",
    "i would like to",
    "i will",
    "i am going to",
    "so i could",
    "so that i could",
    "i need to",
    "i plan to",
    "i could",
)
LIQUIDS = {
    "coffee",
    "tea",
    "water",
    "milk",
    "juice",
    "soup",
    "wine",
    "beer",
    "sauce",
    "some",
    "liquid",
}

QUANT_ALL = {"all", "every", "each", "both", "everything"}
QUANT_ONE = {"one", "any", "whatever", "whichever", "a", "an", "either"}
SEQUENCE = {
    "then",
    "finally",
    "afterwards",
    "next",
    "later",
    "lastly",
    "after that",
    "and then",
    "first",
}
FINAL_ONLY = {"only"}  # "the X should only be in Y at the end"
END_WORDS = {"end", "finish", "last"}
SUPERLATIVES = {
    "largest": ("volume", max),
    "biggest": ("volume", max),
    "smallest": ("volume", min),
    "tiniest": ("volume", min),
    "shortest": ("length", min),
    "longest": ("length", max),
    "tallest": ("height", max),
    "lowest": ("height", min),
    "heaviest": ("volume", max),
    "lightest": ("volume", min),
    "closest": ("distance", min),
    "nearest": ("distance", min),
    "farthest": ("distance", max),
    "furthest": ("distance", max),
}
FITS = {"fits", "fit", "fitting"}
GENERIC = {
    "object",
    "objects",
    "thing",
    "things",
    "item",
    "items",
    "stuff",
    "anything",
    "something",
    "everything",
}

# category → member categories (an object's own category always matches itself)
ONTOLOGY = {
    "fruit": {
        "strawberry",
        "apple",
        "pear",
        "lemon",
        "orange",
        "plum",
        "peach",
        "banana",
        "lime",
        "grape",
        "cherry",
        "kiwi",
        "grapefruit",
        "blueberry",
    },
    "citrus": {"lemon", "orange", "lime", "grapefruit"},
    "berry": {"strawberry", "cherry", "grape", "blueberry"},
    "cutlery": {"fork", "knife", "spoon"},
    "silverware": {"fork", "knife", "spoon"},
    "utensil": {"fork", "knife", "spoon", "spatula", "ladle"},
    "condiment": {"mustard_bottle", "ketchup", "mayonnaise", "salt", "pepper"},
    "container": {"mug", "bowl", "cup", "bin", "basket", "skillet", "pot", "box_container"},
    "dish": {"plate", "bowl"},
    "can": {"potted_meat_can", "tomato_soup_can"},
    "tool": {"hammer", "power_drill", "screwdriver", "wrench"},
    "food": {
        "strawberry",
        "apple",
        "pear",
        "lemon",
        "orange",
        "plum",
        "peach",
        "banana",
        "lime",
        "grape",
        "cherry",
        "kiwi",
        "grapefruit",
        "blueberry",
        "potted_meat_can",
        "tomato_soup_can",
        "sugar_box",
        "soup",
    },
    "vegan": {
        "strawberry",
        "apple",
        "pear",
        "lemon",
        "orange",
        "plum",
        "peach",
        "banana",
        "lime",
        "grape",
        "cherry",
        "kiwi",
        "grapefruit",
        "blueberry",
        "sugar_box",
        "tomato_soup_can",
    },
    "ball": {"golf_ball", "tennis_ball", "ball"},
    "surface": {"region", "plate", "mat", "tray", "table"},
}
# what "everything", "all the things", "the red objects" do not sweep up unless named: what things are put
# in or on (containers, dishes, surfaces, markers), not the things themselves
RECEPTACLES = ONTOLOGY["container"] | ONTOLOGY["dish"] | ONTOLOGY["surface"] | {"line", "trash_can"}
# nouns that name a quantity of stuff rather than one thing: "the fruit", "the cutlery" mean all of it
MASS_NOUNS = {"fruit", "citrus", "cutlery", "silverware", "food", "produce", "stuff"}
NOT_VEGAN = {"potted_meat_can"}  # "not vegan" / "non-vegan"
# other names people use for a category
SYNONYMS = {
    "pan": "skillet",
    "frying pan": "skillet",
    "cup": "mug",
    "drill": "power_drill",
    "mustard": "mustard_bottle",
    "rug": "mat",
    "area": "region",
    "zone": "region",
    "patch": "region",
    "trash": "bin",
    "wastebasket": "bin",
    "spam": "potted_meat_can",
    "meat": "potted_meat_can",
    "sugar": "sugar_box",
}
# what people call a flat marker on the table (a region or a mat) by its shape: "the grey square", "the white pad";
# "spot" only after a colour ("the grey spot"), since "a spot near the bowl" is a place on the table
# (the older "area", "zone", "patch" above name a region only)
MARKER_NOUNS = {"square", "pad", "tile", "marker", "rectangle"}
MARKER_CATEGORIES = {"region", "mat"}
COLOURED_MARKER_NOUNS = {"spot"}
# nouns the grounder knows as objects; one named here but absent from the scene is reported
KNOWN_NOUNS = {
    "strawberry",
    "apple",
    "pear",
    "lemon",
    "orange",
    "plum",
    "peach",
    "banana",
    "lime",
    "fork",
    "knife",
    "spoon",
    "mug",
    "cup",
    "bowl",
    "plate",
    "skillet",
    "pan",
    "sponge",
    "hammer",
    "drill",
    "can",
    "box",
    "bottle",
    "ball",
    "mat",
    "tray",
    "bin",
    "basket",
    "region",
    "table",
    "line",
    "block",
    "cube",
    "cherry",
    "grape",
}
PLURALS = {
    "strawberries": "strawberry",
    "berries": "berry",
    "cherries": "cherry",
    "knives": "knife",
    "boxes": "box",
    "peaches": "peach",
    "fruits": "fruit",
    "dishes": "dish",
    "utensils": "utensil",
    "condiments": "condiment",
}
NOT_PLURAL = {
    "citrus",
    "cutlery",
    "glass",
    "grass",
    "bus",
    "this",
    "his",
    "is",
    "was",
    "its",
    "as",
    "us",
    "yes",
    "less",
}
CENTRE = {
    "center",
    "centre",
    "middle",
}  # "at the centre of the table", "in the middle of the plate": centred on it
LOCATION_WORDS = {
    "center",
    "centre",
    "middle",
    "edge",
    "side",
    "corner",
    "top",
    "surface",
    "area",
    "spot",
    "part",
    "bottom",
    "place",
    "position",
    "half",
}
DESCRIBING = {
    "bisecting",
    "dividing",
    "splitting",
    "crossing",
    "across",
    "along",
    "running",
    "through",
    "covering",
    "holding",
    "containing",
    "sitting",
    "lying",
    "standing",
    "painted",
    "marked",
    "drawn",
}
FILLER = {
    "the",
    "a",
    "an",
    "of",
    "at",
    "to",
    "please",
    "can",
    "could",
    "you",
    "would",
    "and",
    "it",
    "its",
    "that",
    "this",
    "there",
    "gently",
    "carefully",
    "now",
    "up",
    "down",
    "for",
    "me",
    "kindly",
    "just",
    "simply",
    "so",
    "is",
    "be",
    "should",
    "with",
    "from",
    "colored",
    "coloured",
    "one",
    "itself",
    "themselves",
    "them",
    "they",
    "properly",
    "sure",
    "make",
    "do",
    "i",
    "want",
    "like",
    "need",
    "my",
    "some",
    "are",
    "will",
    "must",
    "which",
    "who",
    "what",
    "all",
    "also",
    "too",
    "well",
    "nicely",
    "neatly",
    "quickly",
    "slowly",
    "into",
    "by",
    "other",
    "rest",
    "way",
    "let",
    "have",
    "has",
    "been",
    "being",
    "again",
    "back",
    "these",
    "those",
    "ones",
    "here",
    "while",
    "when",
    "where",
    "if",
    "as",
    "than",
    "more",
    "most",
    "very",
    "really",
    "able",
    "then",
    "finally",
    "after",
    "before",
    "table's",
    "robot's",
    "robots",
    "both",
    "each",
    "every",
    "any",
    "whatever",
    "whichever",
    "only",
    "end",
    "not",
    "no",
    "out",
    "off",
    "lets",
    "let's",
    "we",
    "our",
    "us",
    "thing",
    "things",
    "object",
    "objects",
    "item",
    "items",
    "stuff",
    "fits",
    "fit",
    "fitting",
    "currently",
    "initially",
    "originally",
    "was",
    "were",
    "started",
    "starts",
    "start",
    "first",
    "next",
    "later",
    "lastly",
    "afterwards",
    "ok",
    "okay",
    "thanks",
    "thank",
    "cooked",
    "else",
    "order",
    "time",
}
COLOURS = {
    "red",
    "green",
    "blue",
    "yellow",
    "white",
    "black",
    "grey",
    "gray",
    "light",
    "dark",
    "brown",
    "orange",
    "purple",
    "pink",
    "silver",
    "golden",
    "gold",
}


def singular(word: str) -> str:
    """Crude English singular for object nouns."""
    if word in PLURALS:
        return PLURALS[word]
    if word in NOT_PLURAL or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word


# how a relation is said in words: in a refusal ("cannot put the lemon far from itself") and in a sketch's
# description ("put the lemon near the plate")
RELATION_WORDS = {
    "near": "near",
    "left_of": "left of",
    "right_of": "right of",
    "behind": "behind",
    "in_front_of": "in front of",
    "apart": "far from",
    "off": "clear of",
    "between": "between",
    "aligned": "in line with",
}
