"""An InfiniBand fabric as the hardware reports it: ``ibnetdiscover`` output named as the design names it, and the
subnet manager's files only a discovered fabric can give."""
