-- A token Meta refuses (190 or HTTP 401: expired or revoked) leaves the channel "to reconnect" until
-- the operator saves it again with a new token: the panel and the status say so, and nothing is sent
-- meanwhile (the sales agent holds its replies). Like instagram_channel.reconnect_required.
ALTER TABLE whatsapp_channel ADD COLUMN reconnect_required boolean NOT NULL DEFAULT false;
ALTER TABLE whatsapp_channel ADD COLUMN reconnect_reason text;
