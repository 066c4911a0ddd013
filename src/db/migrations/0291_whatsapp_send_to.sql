-- Argentine mobiles arrive as 549 + 10 digits; Meta may accept a send only to 54 + 10 digits (or the
-- other way round: 131030 in development mode). The form a send last worked with is kept per thread,
-- so the next send goes straight to it (docs/decisiones.md, "Números de celular argentinos").
ALTER TABLE whatsapp_conversations ADD COLUMN send_to text CHECK (send_to ~ '^[0-9]{6,30}$');
