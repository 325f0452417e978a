"""A tokenizer and a policy model small enough to build in a second, made here (no hub download).

- The tokenizer is byte-level BPE (the ``tokenizers`` library) trained on the scenario files, so
  every text round-trips exactly; ``<|im_start|>``, ``<|im_end|>`` and ``<|endoftext|>`` are its
  special tokens and its chat template is Qwen2.5's ChatML without tools (``fixtures/chatml.jinja``).
- The model is a transformers Qwen2 config with one tiny layer and weights drawn from a seeded
  generator: verl's ``HFModelConfig`` reads the config, nothing here runs it.

The directory is what ``actor_rollout_ref.model.path`` points at in the tests.
"""

from __future__ import annotations

import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
VOCABULARY_SIZE = 800
SEED = 20


def build(directory: str, corpus_globs: list[str]) -> str:
    """Writes the tokenizer and the model into ``directory`` (created); returns it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    files = sorted(path for pattern in corpus_globs for path in glob.glob(pattern, recursive=True))
    if not files:
        raise ValueError(f"no corpus files match {corpus_globs}")
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCABULARY_SIZE, special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train(files, trainer)
    with open(os.path.join(HERE, "fixtures", "chatml.jinja"), encoding="utf-8") as handle:
        chat_template = handle.read()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token=None, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token=None)
    fast.chat_template = chat_template
    os.makedirs(directory, exist_ok=True)
    fast.save_pretrained(directory)

    torch.manual_seed(SEED)
    config = Qwen2Config(
        vocab_size=len(fast),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32768,
        eos_token_id=fast.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=fast.pad_token_id,
        tie_word_embeddings=True,
    )
    Qwen2ForCausalLM(config).save_pretrained(directory)
    return directory
