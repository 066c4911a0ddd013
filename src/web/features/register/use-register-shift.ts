import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../../ui/api.ts';
import type { SaleAction } from './sale-state.ts';
import type { QueuedShift, RegisterStore } from './store.ts';
import { type FlushResult, isNetworkError } from './sync.ts';
import { OFFLINE_SHIFT, type RegisterState, type RegisterUser } from './types.ts';
import { keepShellOffline, type useRegisterLink } from './use-register-link.ts';

type Link = ReturnType<typeof useRegisterLink>;
type Notify = (kind: 'ok' | 'error', text: string) => void;

/** A shift opened here without connection: its own id and box, until the server has it. */
interface OfflineShift {
  clientId: string;
  boxId: number;
}
const OFFLINE_SHIFT_KEY = 'caja:offline-shift';
const readOfflineShift = (): OfflineShift | null => {
  try {
    return JSON.parse(localStorage.getItem(OFFLINE_SHIFT_KEY) ?? 'null') as OfflineShift | null;
  } catch {
    return null;
  }
};

/** The page's state, with a shift opened offline (and not sent yet) shown as open. */
function withOfflineShift(initial: RegisterState): RegisterState {
  const shift = readOfflineShift();
  if (!shift) return initial;
  return {
    ...initial,
    boxes: initial.boxes.map((b) =>
      b.id === shift.boxId && b.open_session_id === null
        ? { ...b, open_session_id: OFFLINE_SHIFT, open_session_user_id: initial.user_id ?? null }
        : b,
    ),
  };
}

/**
 * The person's shift at a box (issue 29): the box chosen, its open shift (one opened offline
 * included, until the server numbers it), opening one with the person's own count (online, or
 * queued with its own id and sent once), taking over after a handover, and a close queued offline.
 */
export function useRegisterShift({
  initial,
  user,
  store,
  notify,
  clearNotice,
}: {
  initial: RegisterState;
  user: RegisterUser;
  store: RegisterStore;
  notify: Notify;
  clearNotice: () => void;
}) {
  const [state, setState] = useState(() => withOfflineShift(initial));
  const [boxId, setBoxId] = useState<number | null>(() => {
    const stored = Number(localStorage.getItem('caja:box'));
    return initial.boxes.find((b) => b.id === stored)?.id ?? initial.boxes[0]?.id ?? null;
  });
  const box = state.boxes.find((b) => b.id === boxId) ?? null;
  const sessionId = box?.open_session_id ?? null;

  /** The box's shift is no longer open here (closed, or closed elsewhere). */
  function forgetShift(id: number | null = boxId) {
    setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === id ? { ...b, open_session_id: null } : b)) }));
  }

  /** Shifts opened or closed offline reached the server: the open one gets its real number. */
  function onShiftsSent(shifts: FlushResult['shifts']) {
    const offlineShift = readOfflineShift();
    for (const s of shifts) {
      if (s.op === 'open' && offlineShift && s.clientId === offlineShift.clientId) {
        localStorage.removeItem(OFFLINE_SHIFT_KEY);
        setState((st) => ({
          ...st,
          boxes: st.boxes.map((b) =>
            b.id === offlineShift.boxId && b.open_session_id === OFFLINE_SHIFT ? { ...b, open_session_id: s.sessionId } : b,
          ),
        }));
      }
    }
  }

  async function reloadState() {
    try {
      const fresh = await api<RegisterState>('GET', '/api/v1/register');
      setState((s) => ({ ...withOfflineShift(fresh), scale_label: s.scale_label }));
    } catch {
      // Offline: the screen keeps what it had.
    }
  }

  function chooseBox(id: number) {
    localStorage.setItem('caja:box', String(id));
    setBoxId(id);
  }

  function takeShift(chosenBox: number, sessionIdOfBox: number) {
    chooseBox(chosenBox);
    setState((s) => ({
      ...s,
      boxes: s.boxes.map((b) =>
        b.id === chosenBox
          ? { ...b, open_session_id: sessionIdOfBox, open_session_user_id: s.user_id ?? null, open_session_user_name: user.name }
          : b,
      ),
    }));
    clearNotice();
  }

  /**
   * Opens the person's own shift with their count. Without connection (or with operations still
   * queued) the open is queued with its own id and the register sells at once; the server takes
   * it once, in order, before the sales made in it.
   */
  async function openSession(link: Link, openingCents: number, chosenBox: number) {
    // A box with a shift already open: go to it (the person's own sells at once; another's asks for the handover).
    if ((state.boxes.find((b) => b.id === chosenBox)?.open_session_id ?? null) !== null) {
      chooseBox(chosenBox);
      return;
    }
    const clientId = crypto.randomUUID();
    const body = {
      box_id: chosenBox,
      opening_cash: openingCents / 100,
      client_id: clientId,
      opened_at: new Date().toISOString(),
    };
    const queued = (await store.queuedAll()).filter((q) => !q.error).length;
    if (queued === 0 && !link.offline) {
      try {
        const { session } = await api<{ session: { id: number } }>('POST', '/api/v1/box-sessions', {
          body,
          messages: { conflict: 'Esa caja ya tiene un turno abierto. Actualizá la página.' },
        });
        void keepShellOffline(true);
        takeShift(chosenBox, session.id);
        return;
      } catch (err) {
        if (!isNetworkError(err)) {
          if (err instanceof ApiError && err.code === 'shift_of_another_person') void reloadState();
          notify('error', errorText(err));
          return;
        }
        link.setOffline(true);
      }
    }
    const entry: QueuedShift = {
      kind: 'shift',
      op: 'open',
      key: clientId,
      clientId,
      sessionId: null,
      body,
      queuedAt: body.opened_at,
    };
    await store.enqueue(entry);
    localStorage.setItem(OFFLINE_SHIFT_KEY, JSON.stringify({ clientId, boxId: chosenBox } satisfies OfflineShift));
    takeShift(chosenBox, OFFLINE_SHIFT);
    notify('ok', 'Abriste el turno sin conexión: se registra cuando vuelva la conexión.');
    void link.refreshQueue();
  }

  /** A close made without connection (or after sales still queued): queued after them, sent once. */
  async function queueClose(link: Link, dispatch: (a: SaleAction) => void, counted: Record<string, number>, note: string) {
    const closeId = crypto.randomUUID();
    const entry: QueuedShift = {
      kind: 'shift',
      op: 'close',
      key: closeId,
      clientId: readOfflineShift()?.clientId ?? '',
      sessionId: sessionId !== null && sessionId > 0 ? sessionId : null,
      body: { counted, ...(note ? { note } : {}), client_id: closeId, closed_at: new Date().toISOString() },
      queuedAt: new Date().toISOString(),
    };
    await store.enqueue(entry);
    localStorage.removeItem(OFFLINE_SHIFT_KEY);
    forgetShift();
    dispatch({ type: 'back' });
    notify('ok', 'Cerraste el turno sin conexión: el cierre se registra cuando vuelva la conexión.');
    void link.refreshQueue();
    void link.sync();
  }

  /** Another person's shift is open at the chosen box: the handover screen takes it over. */
  const othersShift =
    box !== null &&
    sessionId !== null &&
    sessionId !== OFFLINE_SHIFT &&
    box.open_session_user_id != null &&
    state.user_id != null &&
    box.open_session_user_id !== state.user_id;

  return {
    state,
    box,
    boxId,
    sessionId,
    othersShift,
    setBoxId,
    forgetShift,
    onShiftsSent,
    reloadState,
    takeShift,
    openSession,
    queueClose,
  };
}
