/**
 * Function words per language: they carry no topic, so they neither link sentences in the ranking
 * graph nor start or end a key phrase. Languages without a list still work (every word counts).
 */
const LISTS: Record<string, string> = {
  en: `a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
    each even ever every few for from further get gets got had hadn't has hasn't have haven't having he he'd he'll
    he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it
    it's its itself just kind know let's like lot lots may me might more most much must mustn't my myself need no
    nor not now of off often on once one only or other ought our ours ourselves out over own quite rather really
    right said same say says see she she'd she'll she's should shouldn't so some something such than that that's
    the their theirs them themselves then there there's these they they'd they'll they're they've thing things think
    this those though through to too under until up upon us very want was wasn't way we we'd we'll we're we've well
    were weren't what what's when when's where where's whether which while who who's whom why why's will with
    within without won't would wouldn't yeah yes yet you you'd you'll you're you've your yours yourself yourselves
    okay ok oh um uh mean actually going go goes went come comes came make makes made take takes took many lot
    able another around back still sure t s don re ve ll d m two three four five six seven eight nine ten eleven
    twelve twenty thirty forty fifty hundred thousand million billion first second third percent per cent
    january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday today tomorrow yesterday year years month months week weeks day days
    time times people person part parts hard good great big small new old best better little long near across
    along behind beyond inside outside toward towards via among since despite except onto per`,
  de: `aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm andern
    anders auch auf aus bei beim bin bis bist da dabei dadurch dafür dagegen daher dahin damals damit danach dann
    daran darauf daraus darin darum darunter das dass dasselbe davon davor dazu dein deine deinem deinen deiner dem
    den denn dennoch der derselbe des deshalb dessen deswegen dich die dies diese dieselbe dieselben diesem diesen
    dieser dieses dir doch dort du durch ein eine einem einen einer eines einig einige einigem einigen einiger
    einiges einmal er es etwa etwas euch euer eure eurem euren eurer eures für gab gegen gewesen gibt ging hab habe
    haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im immer in indem ins
    ist ja jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kannst kein keine keinem keinen
    keiner keines können könnte machen macht man manche manchem manchen mancher manches mehr mein meine meinem
    meinen meiner meines mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne schon sehr sein seine
    seinem seinen seiner seines selbst sich sie sind so solche solchem solchen solcher solches soll sollte sondern
    sonst über um und uns unser unsere unserem unseren unserer unseres unter viel vom von vor wann war waren warst
    was weg weil weiter welche welchem welchen welcher welches wenn wer werde werden wie wieder will wir wird wirst
    wo wollen wollte würde würden zu zum zur zwar zwischen ganz gut genau eigentlich also eben mal halt wurde wurden
    worden sagen sagt sagte geht gehen kommt kommen viele vielen neue neuen beiden bereits zwei drei vier fünf
    sechs sieben acht neun zehn elf zwölf zwanzig dreißig hundert tausend prozent uhr januar februar märz april mai
    juni juli august september oktober november dezember montag dienstag mittwoch donnerstag freitag samstag sonntag
    heute morgen gestern jahr jahre jahren monat woche wochen tag tage herr frau top`,
  fr: `au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais me même mes moi mon ne
    nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous c d j
    l à m n s t y été est sont était ont avait a cette plus comme tout très aussi bien fait être avoir`,
  es: `a al algo como con de del desde donde el ella ellos en entre era es esa ese esta este están fue ha hay la las
    le les lo los más me mi muy no nos o para pero por que qué se ser si sin sobre son su sus también te tiene todo
    un una uno y ya yo`,
  // Japanese: particles, auxiliaries and formal nouns (most are removed anyway: see isContentToken).
  ja: `こと もの ため よう これ それ あれ どれ ここ そこ さん 私 僕 俺 我々 彼 彼女 的 等 今回 方 時 中 上 下 前 後
    感じ 部分 場合 自分 みなさん 皆さん 本当 一番 最初 最後 ところ とき はい いいえ ええ まあ そう どう 何 なに 何か
    必要 今後 現在 以前 以上 以下 一方 次回 前回 今年 去年 来年 毎日 年 月 日 時 分 人 名 本 円 割`,
  zh: `的 了 是 在 我 你 他 她 它 们 这 那 和 与 也 就 都 而 及 或 一个 没有 我们 他们 你们 她们 什么 因为 所以 但是 如果
    可以 已经 非常 很 还 又 对 把 被 让 给 从 到 说 会 要 能 有 不 上 下 中 里 吗 呢 吧 啊 这个 那个 这些 那些 一些 一下
    自己 现在 时候 之后 之前 然后 还是 就是 不是 只是 其实 觉得 认为 知道 需要 应该 可能 比较 一直 大家 这样 那样 怎么
    为什么 以及 并且 而且 虽然 但 于 之 其 等 等等 个 年 月 日 次 些 每 各 另 该 此 将 再 更 最 太 好 多 少 大 小 去 来
    看 做 用 得 地 着 过 吧 嗯 对于 关于 通过 进行 一种 一样 问题 方面 情况 时间 喜欢 提供 告诉 改变 觉得 希望 表示
    开始 使用 发现 成为 能够 愿意 决定 看到 出现 导致 包括 支持 建立 完成 提出 准备 确定 负责 发生 影响 增加 减少
    解决 目前 今天 明天 上午 下午 每天 已经 主要 其中 之一 一起 这里 那里 特别 真正 尤其 首先 最后 另外 此外
    很多 许多 当然 或者 如何 看待 都是 每一 认真 仔细 制定 共同 一定 不同 所有 任何 这种 那种 有些 一直 从来 只要 只有`,
  th: `การ ความ ที่ และ ของ ใน เป็น ได้ ไม่ มี จะ ว่า ให้ กับ นี้ แล้ว ก็ คือ ไป มา อยู่ เรา ผม ฉัน คุณ เขา ครับ ค่ะ คะ
    นะ จาก โดย เพื่อ แต่ หรือ ถ้า ซึ่ง อัน ทำ ต้อง ยัง เลย กัน ด้วย อีก บาง ทุก แค่ เพราะ ดังนั้น ทั้ง`,
};

const CACHE = new Map<string, Set<string>>();

export function stopwords(lang: string): Set<string> {
  let set = CACHE.get(lang);
  if (!set) {
    set = new Set((LISTS[lang] ?? "").split(/\s+/).filter(Boolean));
    CACHE.set(lang, set);
  }
  return set;
}
