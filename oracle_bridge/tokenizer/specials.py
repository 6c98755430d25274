"""The added tokens of MiniMax-Music3's tokenizer, in id order from 151643 (the Qwen3 set, then the six music tokens).

Contract: SPECIALS is [(content, special)] for ids 151643..151674. `special` follows Qwen3's hub
tokenizer_config (the tool/fim/think tokens are added tokens but not special); every entry is matched on the
raw text (normalized=False), as on the hub. BASE_VOCAB is the id of the first added token.
"""
BASE_VOCAB = 151643

SPECIALS = [
    ("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True),
    ("<|object_ref_start|>", True), ("<|object_ref_end|>", True), ("<|box_start|>", True), ("<|box_end|>", True),
    ("<|quad_start|>", True), ("<|quad_end|>", True), ("<|vision_start|>", True), ("<|vision_end|>", True),
    ("<|vision_pad|>", True), ("<|image_pad|>", True), ("<|video_pad|>", True),
    ("<tool_call>", False), ("</tool_call>", False), ("<|fim_prefix|>", False), ("<|fim_middle|>", False),
    ("<|fim_suffix|>", False), ("<|fim_pad|>", False), ("<|repo_name|>", False), ("<|file_sep|>", False),
    ("<tool_response>", False), ("</tool_response>", False), ("<think>", False), ("</think>", False),
    ("<|audio_start|>", True), ("<|audio_end|>", True), ("<|caption_start|>", True), ("<|caption_end|>", True),
    ("<|lyrics_start|>", True), ("<|lyrics_end|>", True),
]
