-- Giving a conversation back to the sales agent no longer deletes its handoff mark: it records when
-- (resumed_at). The agent needs that time to tell the team's messages written while the
-- conversation was theirs (which no longer count once it is given back) from a person of the team
-- stepping in later (docs/decisiones.md, "El agente no entra en una conversación que abrió alguien
-- del equipo"). A mark is open while resumed_at is null; tagging the conversation again reopens it.
ALTER TABLE sales_agent_handoffs ADD COLUMN resumed_at timestamptz;
