// "How to play": a short account of Gops and of Gofo in both languages, written from the project's
// rule books (docs/rules/gops.md, docs/rules/gofo.md), opened from the header on every screen.
import { lang } from './i18n.js';

export const RULES = {
  en: {
    title: 'How to play',
    close: 'Close',
    open: 'How to play',
    gops: {
      name: 'Gops',
      points: [
        'Every player holds the same cards, A to K: A is worth 1, J 11, Q 12, K 13. The prizes are one more set, turned up one at a time.',
        'For each prize every player picks one of their own cards in secret. This phone seals your pick; all picks are shown together once everyone has bid.',
        'The highest card takes the prize. Every card bid is spent, winning or not, and is never worth points itself.',
        'A tie: nobody takes the prize. In Classic it stays in the middle and goes to the next round\'s winner; in Standard it is set aside, worth nothing.',
        'When the cards run out, whoever holds the most prize points wins.',
      ],
    },
    gofo: {
      name: 'Gofo',
      points: [
        'A 28-card Spanish deck: the 3 to 7, the caballo (worth 8) and the rey (worth 9) of each suit. A hand of five cards is worth its best suit: add that suit\'s cards, at most four. The best is 30, the lowest 7.',
        'Mano, the player after the dealer, opens a bet without looking at his two cards. Each other player enters with as much (after looking, or blind) or declines at no cost.',
        'The opening may be raised, first by mano, then by those who entered blind; a raise is seen or folded.',
        'Everyone still in gets three more cards. Then up to four speaking rounds: voy (pass) or corta (a bet). If nobody cuts, everyone discards face up and gets as many new cards.',
        'After a corte each other player sees it (puts in as much) or folds, losing what he put in; then refiche: a raise of at least the last bet. One last discard follows.',
        'The canto: each player declares his points; the best hand takes the pot, and on equal points the one nearer to mano. A bettor whom everybody else folds against takes it all without showing.',
        'You bet only the chips in front of you; one who has bet them all is jugado and stays in for what he put in. An empty front is refilled from the chips behind between hands.',
      ],
    },
  },
  es: {
    title: 'Cómo se juega',
    close: 'Cerrar',
    open: 'Cómo se juega',
    gops: {
      name: 'Gops',
      points: [
        'Todos los jugadores tienen las mismas cartas, del A al K: el A vale 1, la J 11, la Q 12, el K 13. Los premios son otro juego de cartas, que se da vuelta de a una.',
        'Por cada premio cada jugador elige en secreto una de sus cartas. Este teléfono sella tu elección; todas se muestran juntas cuando todos han apostado.',
        'La carta más alta se lleva el premio. Toda carta apostada se gasta, gane o no, y nunca vale puntos.',
        'Un empate: nadie se lleva el premio. En la Clásica queda en el centro para quien gane la ronda siguiente; en la Estándar se descarta y no vale nada.',
        'Cuando se acaban las cartas gana quien suma más puntos de premios.',
      ],
    },
    gofo: {
      name: 'Gofo',
      points: [
        'Un mazo español de 28 cartas: del 3 al 7, el caballo (vale 8) y el rey (vale 9) de cada palo. Cinco cartas valen su mejor palo: se suman las cartas de ese palo, como mucho cuatro. Lo más es 30, lo menos 7.',
        'El mano, el jugador siguiente al que reparte, abre con una apuesta sin mirar sus dos cartas. Cada uno de los demás entra con lo mismo (mirando, o de ciego) o no entra, sin perder nada.',
        'La apertura se puede subir, primero el mano y luego quienes entraron de ciego; una subida se ve o se deja.',
        'Los que siguen reciben tres cartas más. Luego hasta cuatro vueltas de hablar: voy (paso) o corto (una apuesta). Si nadie corta, todos descartan boca arriba y reciben otras tantas cartas.',
        'Tras un corte cada uno de los demás lo ve (pone lo mismo) o no ve y pierde lo que puso; luego el refiche: subir al menos lo que la última apuesta. Sigue un último descarte.',
        'El canto: cada jugador canta sus puntos; la mejor mano se lleva el pozo, y a igual puntos la del jugador más cercano al mano. Si todos los demás dejan una apuesta, quien la hizo se lleva todo sin mostrar.',
        'Solo se apuestan las fichas que uno tiene al frente; quien las apostó todas está jugado y sigue por lo que puso. Un frente vacío se repone entre mano y mano con las fichas de atrás.',
      ],
    },
  },
};

/** The panel's contents in the page's language; the game being played (if any) opened first. */
export function drawRules(panel, game) {
  const text = RULES[lang()];
  panel.replaceChildren();
  const heading = document.createElement('h2');
  heading.textContent = text.title;
  panel.append(heading);
  for (const key of ['gops', 'gofo']) {
    const part = document.createElement('details');
    part.id = `rules-${key}`;
    part.open = key === game || (!game && key === 'gops');
    const summary = document.createElement('summary');
    summary.textContent = text[key].name;
    const list = document.createElement('ol');
    for (const point of text[key].points) {
      const li = document.createElement('li');
      li.textContent = point;
      list.append(li);
    }
    part.append(summary, list);
    panel.append(part);
  }
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'secondary';
  close.id = 'rules-close';
  close.textContent = text.close;
  panel.append(close);
  return close;
}
