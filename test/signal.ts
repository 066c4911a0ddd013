/** A promise that a test settles by hand: `await s.fired` waits until someone calls `s.fire()`. */
export function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}
