"""The real-data suite: packs built from the loghub samples, and the questions asked of them."""
