/** The operator inbox's channels side by side: one tab per channel, the current one marked. */
export function ChannelTabs({ current }: { current: 'instagram' | 'whatsapp' }) {
  const tabs = [
    { id: 'instagram', href: '/superadmin/instagram', label: 'Instagram' },
    { id: 'whatsapp', href: '/superadmin/whatsapp', label: 'WhatsApp' },
  ] as const;
  return (
    <nav class="channel-tabs" aria-label="Canales de la bandeja">
      {tabs.map((t) => (
        <a key={t.id} href={t.href} data-channel-tab={t.id} aria-current={t.id === current ? 'page' : undefined}>
          {t.label}
        </a>
      ))}
    </nav>
  );
}

/** On a phone the connection card starts folded: the conversations come first. */
export function narrowScreen(): boolean {
  return typeof window !== 'undefined' && window.matchMedia('(max-width: 760px)').matches;
}
