"""Where tool answers come from: the pack, an imported log store, and (later) live systems."""
