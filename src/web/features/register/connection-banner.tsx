export /** Without connection, sales wait in this computer; a refused one is shown until someone sees to it. */
function ConnectionBanner({ offline, pending, failed }: { offline: boolean; pending: number; failed: { message: string }[] }) {
  return (
    <>
      {offline ? (
        <p class="register-offline" role="status" id="register-offline">
          <strong>Sin conexión con el servidor.</strong> Podés seguir vendiendo: las ventas se guardan en esta computadora y se
          envían solas cuando vuelva la conexión.{pending > 0 ? ` Ventas sin enviar: ${pending}.` : ''}
        </p>
      ) : pending > 0 ? (
        <p class="register-offline" role="status" id="register-offline">
          Enviando {pending} {pending === 1 ? 'venta guardada' : 'ventas guardadas'} sin conexión…
        </p>
      ) : null}
      {failed.length > 0 ? (
        <div class="notice notice-error" role="alert">
          {failed.length === 1 ? 'Una venta guardada sin conexión' : `${failed.length} ventas guardadas sin conexión`} no se pudo
          registrar: {failed.map((f) => f.message).join(' · ')} Avisale a un administrador.
        </div>
      ) : null}
    </>
  );
}
