"""Pure rendering: text, images and the message catalogues; no Telegram, no I/O."""
