"""The file formats a softmax layer comes in, read exactly and defensively.

``read_layer`` (in ``layers``) chooses among the readers by the file's
extension and builds the layer; each other module reads one kind of file:

    layers          read_layer, read_model: a layer's weights, bias, tokens
                    and provenance from any file or model folder
    folders         model folders, shards, and which arrays are the layer
    final_norm      the LayerNorm or RMSNorm that feeds a folder's head, or one named
    vocab           tokenizer.json, vocab.json, vocab.txt, .vocab: tokens
    classes         lists of class ids: 0:1000, 3,17,40:50, @FILE
    embeddings      GloVe and word2vec text: a token and its vector per line
    source          regular files only, within size limits; message excerpts
    number_text     number text: CSV, whitespace- or semicolon-separated
    json_text       JSON read safely (Decimal numbers, nesting and keys checked); JSON layers
    binary          little- or big-endian numbers from a file, into one buffer
    npy             .npy files (a strict header grammar) and .npz archives
    xz              an .npz or .npy inside xz (model.npz.xz), inflated within limits
    archive         zip members read within their declared sizes
    safetensors     .safetensors files (header and offsets checked first)
    torch           torch checkpoints, zip and legacy, never run
    numpy_pickle    pickles of numpy arrays (.pkl, .pickle, an object .npy), never run
    pickle_screen   what a pickle would do, read before any of it runs
    onnx            ONNX models: initializers, Constant values, the graph as read
    onnx_head       the output layer an ONNX graph computes, each op modeled exactly
    protobuf        protobuf's wire format (ONNX, SentencePiece)
    gguf            GGUF files (llama.cpp), quantized heads dequantized exactly
    fasttext        fastText models (.bin, .ftz): the output layer and its labels
    hdf5            HDF5 as h5py writes it by default: groups, datasets, attributes
    keras           Keras's HDF5 files: the output layer its model config names
    thinc           spaCy components: thinc's msgpack, the parser's upper layer
    msgpack         msgpack, decoded within limits
    sentencepiece   the pieces of a SentencePiece model file

A file with arrays is read as a list of Array: a name, a shape, a dtype and
``load()``, which reads that array's values only when called.  A file that
names its own output layer (ONNX, GGUF, fastText, Keras, spaCy) returns an
Arrays, a list that also says which (its ``head``) and its classes' names.
"""
