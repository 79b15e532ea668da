-- Where a restarted bot's thread lines stand is the newest done board row of the game
-- (Repository.board_shown, bot/ui/delivery.py Delivery._shown_upto). The outbox keeps its done
-- rows, so without this index that read scans every row written since the game's last board.
CREATE INDEX outbox_boards_done ON outbox(game, id) WHERE kind = 'board' AND done_at IS NOT NULL;
