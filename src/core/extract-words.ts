/**
 * The words the extractor reads, in English, German, French, Spanish, Portuguese, Italian, Dutch,
 * Russian, Japanese and Chinese. Matched against lower-cased text; `\p{L}` keeps accented letters
 * inside words (JS `\b` is ASCII-only). No pattern starts with `\p{L}*`: that retries at every
 * letter of every word (issue 15 measured it as the costliest regex of ingest).
 */
import { WordList } from './word-scan.js';

const L = '\\p{L}';
const wordSource = (body: string) => `(?<![${L}\\p{N}])(?:${body})(?![${L}])`;
const word = (words: string[]) => new WordList(wordSource(words.join('|')), { words, inner: [] });

const CJK_CODE_WORDS = ['验证码', '驗證碼', '校验码', '动态码', '确认码', '代码', '认证码', '認証コード', '確認コード', 'ワンタイムパスワード', 'パスコード', 'コード', '認証番号', '暗証番号', '인증 ?번호', '인증 ?코드', '코드'];

/**
 * Words that end compounds (Bestätigungscode, passcode, Sicherheitskode, кода) match inside a word;
 * Japanese and Chinese write without spaces, so their words match anywhere too.
 */
const COMPOUND_CODE_WORDS = ['codes?', 'c[oó]digos?', 'codic[ei]', 'kode?s?', `код${L}*`];
const withCompounds = (words: string[]) =>
  new WordList(`${wordSource(words.join('|'))}|(?:${COMPOUND_CODE_WORDS.join('|')})(?![${L}])|${CJK_CODE_WORDS.join('|')}`, {
    words,
    inner: [...COMPOUND_CODE_WORDS, ...CJK_CODE_WORDS],
  });


/** Words that name a code outright (besides the compounds above). */
const CORE_CODE_WORDS = [
  'пин',
  'одноразов\\p{L}*',
  'otp',
  'pin',
  '(?:push|sms|mobile|chip|photo|m|i)?tan',
  'one[- ]time',
  'single[- ]use',
  `einmal${L}*`,
  'usage unique',
  'uso único',
  'un solo uso',
  'clave',
  'token',
  'passwort',
  'kennwort',
  'contraseña',
  'senha',
  'mot de passe',
];

/** Words about signing in or verifying: enough next to a label ("Verification: 482913"), not on their own. */
const CONTEXT_CODE_WORDS = [
  '2fa',
  'mfa',
  'two[- ]factor',
  `zwei[- ]?faktor${L}*`,
  `verif${L}*`,
  `best[aä]tigung${L}*`,
  `confirma${L}*`,
  `authenti${L}*`,
  `autenti${L}*`,
  'security',
  'sécurité',
  'seguridad',
  'segurança',
  'sicherheit',
  'login',
  'log[- ]?in',
  'sign[- ]?in',
  `anmeld${L}*`,
  'connexion',
  `verifica${L}*`,
  `bevestig${L}*`,
  `подтвер${L}*`,
  'accesso',
  'inloggen',
  'вход\\p{L}*',
];

export const CORE_CODE_WORD = withCompounds(CORE_CODE_WORDS);
export const CODE_WORDS = withCompounds([...CORE_CODE_WORDS, ...CONTEXT_CODE_WORDS]);

/** Words that make a nearby number something else: orders, phones, prices, addresses, references. */
export const NOT_CODE_WORDS = word([
    `order${L}*`,
    `bestell${L}*`,
    'commande',
    'pedido',
    'encomenda',
    `invoice${L}*`,
    `rechnung${L}*`,
    'facture',
    'factura',
    'fatura',
    'receipt',
    'quittung',
    'reçu',
    'recibo',
    'ticket',
    'tracking',
    `sendung${L}*`,
    'suivi',
    'seguimiento',
    'rastreamento',
    'account (?:number|no)',
    `kunden${L}*`,
    'customer (?:number|no\\.?|id)',
    'numéro (?:de )?client',
    'n° client',
    'número de cliente',
    'número do cliente',
    `konto${L}*`,
    `referen${L}*`,
    'référence',
    'ref',
    'booking',
    `buchung${L}*`,
    'réservation',
    'reservation',
    'reserva',
    'flight',
    'flug',
    'vuelo',
    'voo',
    'phone',
    'tel',
    `telefon${L}*`,
    'téléphone',
    'teléfono',
    'telefone',
    'call',
    'anrufen',
    'appelez',
    'llámenos',
    'ligue',
    'fax',
    'whatsapp',
    'zip',
    'postal',
    'postcode',
    'plz',
    `postleitzahl${L}*`,
    'cep',
    'promo',
    'promocional',
    'discount',
    'rabatt',
    `gutschein${L}*`,
    'coupon',
    'voucher',
    'réduction',
    'descuento',
    'desconto',
    'cupón',
    'cupom',
    'gift',
    'serial',
    'model',
    'modell',
    'version',
    'transaction',
    `transaktion${L}*`,
    'transacción',
    'transação',
    'case',
    'dossier',
    'caso',
    'amount',
    'betrag',
    'montant',
    'importe',
    'total',
    'price',
    'preis',
    'prix',
    'precio',
    'preço',
    'room',
    'zimmer',
    'chambre',
    'gate',
    'seat',
    'suite',
    'street',
    'straße',
    'strasse',
    'rue',
    'calle',
    'rua',
    'avenida',
    'avenue',
    'card',
    'ending',
    'karte',
    'carte',
    'tarjeta',
    'cartão',
    'cartao',
    'member',
    'mitglied',
    'membre',
    'socio',
    'sócio',
    'número de (?:pedido|cliente|cuenta|factura|conta)',
    'nº',
    'n°',
    'nr\\.?',
    'no\\.',
    'id',
    'confirmation (?:number|no\\.?)',
    'numéro de confirmation',
    'número de confirmaci[oó]n',
    'número de confirmação',
    'bestätigungsnummer',
    'buchungsnummer',
]);

/** A keyword with these right after it is not about codes: "code postal", "código promocional", "code promo". */
export const NOT_CODE_AFTER_KEYWORD = /^\s*(?:postal|promo\p{L}*|de (?:réduction|descuento|desconto|promo\p{L}*)|do cupom)/u;

/** "is", "lautet", ":", "为", "は" or nothing at all ("use code X7K9"): the code follows the keyword directly. */
export const STRONG_LEAD = new RegExp(`^\\s*$|[:：]\\s*$|(?:为|是|は)\\s*$|(?<![${L}])(?:is|are|ist|lautet|est|es|é|será|sera|è|fala|—|–)\\s*[:]?\\s*$`, 'u');

/** Between a code and the keyword after it: "482913 is your Acme verification code", "482913 ist dein Code". */
export const STRONG_TRAIL = new RegExp(
  `^\\s*(?:is|ist|est|es|é|—|–|-|:)\\s+(?:(?:your|the|dein|ihr|votre|ton|tu|su|seu|sua|o|a)\\s+)?(?:[${L}\\p{N}'’.-]+\\s+){0,3}$`,
  'u',
);

const join = (words: string[]) => words.join('|');

/** Link purposes, by what the anchor text (or the URL path) says. Checked in this order. */
export const UNSUBSCRIBE_WORDS = new RegExp(
  join([
    'unsubscribe',
    'opt[-_ ]?out',
    'abbestellen',
    'abmelden',
    'austragen',
    'd[ée]sabonner',
    'd[ée]sinscri',
    'desinscri',
    'dar(?:se)? de baja',
    'date de baja',
    'cancelar (?:la |a )?suscripci[oó]n',
    'anular (?:la )?suscripci[oó]n',
    'descadastr',
    'cancelar (?:a )?inscri[cç][aã]o',
    'cancelar (?:a )?assinatura',
    '(?:e-?mail|newsletter) ?preferences',
    'manage (?:your )?(?:e-?mail )?(?:preferences|subscriptions)',
  ]),
  'u',
);

/** Confirming a new address: checked before verification ("Confirm new email address" is an email change). */
export const EMAIL_CHANGE_WORDS = new RegExp(
  join([
    'e-?mail[ _-]?change',
    'change (?:of )?(?:your )?e-?mail',
    'new e-?mail',
    'update (?:of )?(?:your )?e-?mail',
    'account with (?:the )?e-?mail address',
    'e-mail-adresse [äa]ndern',
    'neue e-mail',
    'nouvelle adresse',
    "avec l['’]adresse (?:de )?(?:courriel|e-?mail)",
    'nouveau courriel',
    'nuevo correo',
    'novo e-?mail',
    'nuovo indirizzo',
    'nieuw e-?mailadres',
    'новый адрес',
    'с адресом электронной почты',
    'メールアドレスの変更',
    '新しいメールアドレス',
    '更改邮箱',
    '新邮箱',
  ]),
  'u',
);

export const ACCOUNT_UNLOCK_WORDS = new RegExp(
  join(['unlock', 'entsperr', 'd[ée]bloqu', 'desbloque', 'sblocc', 'ontgrendel', 'разблокир', 'ロック解除', '解锁', '解鎖']),
  'u',
);

export const INVITATION_WORDS = new RegExp(
  join([
    'invit',
    'einladung',
    'eingeladen',
    'convite',
    'convidad',
    'uitnodig',
    'приглаш',
    'пригласил',
    '招待',
    '邀请',
    '邀請',
    'join the',
  ]),
  'u',
);

/** An administrator asks for required actions ("Update your account"). */
export const ACCOUNT_UPDATE_WORDS = new RegExp(
  join([
    'update (?:your )?(?:[\\p{L}\\d-]+ )?account',
    'account[- ]update',
    'required action',
    'konto aktualisieren',
    'mettre à jour (?:votre )?compte',
    'mise à jour (?:de votre |du )compte',
    'actuali[zc]\\p{L}* (?:su |tu )?cuenta',
    'atualiz\\p{L}* (?:sua )?conta',
    'aggiorna(?:re)? (?:il )?(?:tuo )?account',
    'account bijwerken',
    // An administrator asking for actions on the account is what this kind is.
    'your administrator has (?:just )?requested',
    'votre administrateur vient de demander',
    'el administrador ha solicitado',
    'o administrador solicitou',
    'il tuo amministratore ha (?:appena )?richiesto',
    'uw beheerder heeft u verzocht',
    'обновлени\\p{L}* (?:аккаунта|учетной записи)',
    'обновить данные',
    'アカウントの更新',
    '更新账户',
    '更新您的账户',
  ]),
  'u',
);

/** Choosing a first password (an account created for you): checked before reset. */
export const SET_PASSWORD_WORDS = new RegExp(
  // Whole words only: "reset a password", "restablecer", "redefinir" and "reimposta" contain the words of setting one.
  `(?<!\\p{L})(?:${join([
    'set (?:up )?(?:your |a )?password',
    'create (?:your |a )password',
    'choose (?:your |a )password',
    'passwort festlegen',
    'définir (?:votre )?mot de passe',
    'establecer (?:tu |su )?contraseña',
    'definir (?:sua )?senha',
    'imposta(?:re)? (?:la )?password',
    'wachtwoord instellen',
    'установ\\p{L}* пароль',
    'パスワードを設定',
    '设置密码',
  ])})`,
  'u',
);

export const PASSWORD_RESET_WORDS = new RegExp(
  join([
    'reset',
    'сброс',
    'сбросить',
    'восстановлен',
    'リセット',
    '重置',
    '重設',
    'reimposta',
    'wachtwoord',
    'herstel',
    'änderung der anmeldeinformationen',
    'aanmeldgegevens',
    'credenciales',
    'reinici',
    'passwor[dt]',
    'kennwort',
    'mot de passe',
    'contrase[ñn]a',
    'senha',
    'forgot',
    'oubli',
    'olvid',
    'esquec',
    'recover',
    'zur[uü]cksetzen',
    'r[ée]initialis',
    'restablecer',
    'redefinir',
  ]),
  'u',
);

/** Said outright: these win over the verification words ("Confirm sign-in" is a login link). */
export const MAGIC_LOGIN_STRONG_WORDS = new RegExp(
  join(['magic[ -_]?link', 'magiclink', 'confirm (?:your )?(?:sign[- ]?in|log[- ]?in|login)', '(?:sign[- ]?in|log[- ]?in|login) link']),
  'u',
);

export const VERIFICATION_WORDS = new RegExp(
  join([
    'verif',
    'confirm',
    'activat',
    'activer',
    'activar',
    'ativar',
    'aktivier',
    'validat',
    'valider',
    'validar',
    'best[aä]tig',
    'verifica',
    'conferm',
    'bevestig',
    'verifieer',
    'верифик',
    'подтвер',
    '確認',
    '验证',
    '驗證',
    '确认',
    'complete (?:your )?(?:registration|sign[- ]?up)',
    'registrierung abschlie',
  ]),
  'u',
);

export const MAGIC_LOGIN_WORDS = new RegExp(
  join([
    'sign[- _]?in',
    'log[- _]?in',
    'einloggen',
    'anmelden',
    'connexion',
    'se connecter',
    'connectez',
    'iniciar sesi[oó]n',
    'inicia sesi[oó]n',
    'acceder',
    'entrar',
    'acessar',
    'fazer login',
    'access your account',
    'accedi',
    'inloggen',
    'aanmelden',
    'войти',
    'ログイン',
    'サインイン',
    '登录',
    '登入',
  ]),
  'u',
);
