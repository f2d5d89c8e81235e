"""Writes tests/data/spacy/toy_ner/: a blank English pipeline whose entity
recognizer (a small tok2vec of its own) is trained for a few steps on toy
data, then saved with nlp.to_disk.  Run with spaCy 3.6.1 (numpy < 2):

    python make_ner.py OUTPUT_FOLDER
"""

import random
import sys

import spacy
from spacy.training import Example

random.seed(0)
spacy.util.fix_random_seed(0)
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "width": 8, "depth": 1,
           "embed_size": 50, "window_size": 1, "maxout_pieces": 2,
           "subword_features": False, "pretrained_vectors": None}
MODEL = {"@architectures": "spacy.TransitionBasedParser.v2", "state_type": "ner",
         "extra_state_tokens": False, "hidden_width": 8, "maxout_pieces": 2,
         "use_upper": True, "nO": None, "tok2vec": TOK2VEC}
DATA = [("Ada Lovelace lived in London .", [(0, 12, "PERSON"), (22, 28, "GPE")]),
        ("Paris is in France .", [(0, 5, "GPE"), (12, 18, "GPE")]),
        ("Alan Turing worked at Bletchley Park .", [(0, 11, "PERSON"), (22, 36, "FAC")]),
        ("Grace Hopper visited Paris .", [(0, 12, "PERSON"), (21, 26, "GPE")])]

nlp = spacy.blank("en")
nlp.add_pipe("ner", config={"model": MODEL})
examples = [Example.from_dict(nlp.make_doc(text), {"entities": spans}) for text, spans in DATA]
optimizer = nlp.initialize(lambda: examples)
for _ in range(20):
    random.shuffle(examples)
    nlp.update(examples, sgd=optimizer, drop=0.0)
nlp.to_disk(sys.argv[1])
