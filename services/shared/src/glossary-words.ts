/**
 * Frequent everyday words (four letters and more) of the languages whose glossary terms may be matched
 * within an edit distance (glossary.ts): a word found in the transcript that is one of these, or one of
 * the language's function words (language/stopwords.ts), is never rewritten into a glossary term
 * ("cable" stays "cable" with the term "Gable"). Languages without a list get case and spacing fixes
 * only.
 */
import { stopwords } from "./language/stopwords.ts";

const LISTS: Record<string, string> = {
  en: `able about above across action actually added after again against ago agree almost alone along already
    also although always among amount animal another answer anyone anything anyway anywhere apart appear apple
    area areas argue around arrive article asked asking aside attack avoid away baby back bad bank base based
    basic basis bear beat beautiful became because become becomes been before began begin behind being believe
    below best better between beyond bill bird birth bit black blood blue board boat body book books born both
    bottom bought bread break bring broke brother brought brown build building built business busy cable call called
    came camera cancer cannot capital card care career carry case cases catch cause cell center central century
    certain chair chance change changed changes chapter charge check child children choice choose church cities
    city class clear clearly close closed coach coast cold college color come coming common company complete
    computer control cook cool copy corner cost costs could count country couple course court cover create crime
    cross culture current customer cycle daily damage dance dark data date daughter dead deal dear death debate
    decide decided deep degree design detail details develop died difference different difficult dinner
    direction directly discuss disease doctor does doing done door double down draw dream dress drink drive
    drop during each early earth east easy economic economy edge education effect effort eight either else
    employee energy enjoy enough enter entire environment equal especially evening event events ever every
    everybody everyone everything evidence exactly example expect experience explain face fact factor fail fall
    family famous farm fast father fear feel feeling feet field fight figure fill film final finally financial
    find fine finger finish fire firm first fish five floor focus follow food foot force foreign forget form
    former forward four free friend friends front full fund funny future game garden general generation girl
    give given glass goal gold gone good government great green ground group grow growth guess guys hair half
    hall hand hands happen happened happy hard head health hear heard heart heat heavy held hell help here high
    himself history hold home hope horse hospital hotel hour hours house however huge human hundred husband idea
    ideas image imagine important include including increase indeed industry information inside instead
    interest interesting into issue issues itself job jobs join just keep kept kids kill kind kitchen knew know
    knowledge known land language large last late later laugh lawyer lead leader learn least leave left legal
    less letter level life light likely line list listen little live lives living local long look looked
    looking lose loss lost love lower machine made main major make makes making manage many market married
    matter maybe mean meaning means media medical meet meeting member memory mention message method middle might
    military million mind minute minutes miss model modern moment money month months more morning most mother
    move movement movie much music must myself name names nation national natural nature near nearly need
    needs never news next nice night none normal north note nothing notice number numbers office officer often
    once only open order other others outside over owner page pain paper parent parents part particular
    partner party pass past patient pattern peace people perhaps period person personal phone pick picture
    piece place places plan plant play player please point police policy political poor popular position
    possible power practice prepare present president pressure pretty price private probably problem problems
    process produce product program project provide public pull purpose push quality question questions quick
    quickly quite race radio raise range rate rather reach read ready real reality really reason receive recent
    record reduce region remain remember report research resource respond rest result return rich right rise
    risk road rock role room round rule rules safe same save school science score season seat second seem seen
    sell send sense series serious serve service seven several shake share shoot short should shoulder show
    side sign simple simply since sing single sister site situation size skill skin small smile social society
    some someone something sometimes song soon sort sound source south space speak special speech spend sport
    spring staff stage stand standard start started state statement station stay step still stock stop store
    story street strong student students study stuff style subject success such suddenly summer support sure
    surface system table take taken talk talking teach teacher team tell tend term terms test than thank that
    their them themselves then theory there these they thing things think thinking third those though thought
    thousand three through throw time today together told tonight total tough toward town trade training travel
    treat tree trial trip trouble true truth trying turn type under understand unit until upon used using usually
    value various very victim view visit voice vote wait walk wall want wanted wants watch water ways wear
    week weeks weight well went were west what whatever when where whether which while white whole whom whose
    wife will window wish with within without woman women wonder word words work worked worker working world
    worry would write writer written wrong yard yeah year years young yourself`,
  de: `aber abend alle allein alles alter ander andere anfang arbeit arbeiten auch auge augen ausbildung beginn
    beispiel bekommen beruf besser bild bisschen bitte bleiben brauchen bruder buch damals danke denken deutsch
    dinge doch eigentlich einfach eltern ende endlich erste erzählen essen etwas fahren fall familie farbe
    fenster fertig finden firma frage fragen frau freund freunde führen ganz geben gehen geld gemacht genau
    gerade gern geschichte gesehen gestern glauben gleich glück groß gruppe haben halt hand haus heute hilfe
    hören immer jahr jahre jetzt jung kind kinder klar klein kommen kopf kosten kraft kunde lachen land lange
    laufen leben leicht lernen lesen leute liebe machen mädchen mann mensch menschen meinen minute moment
    morgen musik mutter nacht nehmen neue noch oben ordnung paar person platz problem projekt recht reden
    richtig ruhe sache sagen schnell schon schreiben schule schwer sehen sehr seite sicher sitzen sohn spielen
    sprache stadt stehen stelle straße stück stunde suchen teil thema tochter unten vater viel vielleicht
    wasser weiß welt wenig werden wieder wissen woche wohnen wort zeit zusammen`,
  fr: `aller alors ami amis année années après argent arriver aussi autre avant avec avoir beaucoup besoin bien
    bon bonne cette chaque chose choses comme comment connaître côté croire dans demander depuis dernier deux
    dire donc donner école encore enfant enfants ensemble entre entreprise être faire famille femme fille fils
    fois france gens grand grande homme heure histoire jamais jour jours jusqu laisser leur main maintenant
    maison mais manière monde moment monsieur mère mettre moins monde même nous oui parce parler partie passer
    pendant penser personne petit peut peux place plus porte pouvoir premier prendre puis quand quelque
    question rester rien savoir seulement sous souvent suite sûr temps tête toujours tous tout travail trouver
    très venir vie ville voir voiture vouloir vrai vraiment`,
  es: `ahora algo allí antes años aquí así bien bueno cada casa cierto ciudad como cosa cosas creo cuando decir
    desde después día días dinero donde entonces esto estar familia forma gente gracias grande hacer hasta
    hombre hora lugar luego madre mañana manera mejor menos mientras mismo momento mucho mujer mundo nada nadie
    noche nuevo nunca otra otro padre país para parte pasar pero persona poco poder porque pregunta primero
    puede pues quiero saber siempre sobre también tanto tener tiempo todo trabajo tres vamos veces verdad vida`,
};

const CACHE = new Map<string, Set<string> | null>();

/**
 * The language's common words (its list above and its function words), lower case; null when the
 * language has no list (no edit-distance matching then).
 */
export function commonWords(lang: string): Set<string> | null {
  const base = lang.toLowerCase().split(/[-_]/)[0];
  let set = CACHE.get(base);
  if (set === undefined) {
    const list = LISTS[base];
    set = list ? new Set([...list.split(/\s+/).filter(Boolean), ...stopwords(base)]) : null;
    CACHE.set(base, set);
  }
  return set;
}
