"""Word lists the claim kinds (`extract.kinds`) and the sentence forms (`extract.phrases`) share:
data, one space-separated string a list (order does not matter: each is a set)."""

from __future__ import annotations

from citecheck.numbers import wordset

# Word classes.
DETERMINERS = wordset("the a an this these those its their our your his her my some any each every all")
PREPOSITIONS = wordset(
    "for of with to in on at by from about into onto over under between among across via per than as "
    "like including"
)

# Verbs a sentence opens with when it tells the reader what to do ("Use …", "Don't …", "Let's …");
# a sentence's first word among them may still be a name or a noun ("Read the Docs received a
# grant"), which the rules that read them check.
IMPERATIVE_VERBS = wordset(
    "accept act add adopt aim allow answer apply ask assume automate avoid be begin block bookmark "
    "browse build bump call celebrate change check choose clarify clean click clone close collect "
    "come cover commit communicate compare configure connect consider contact continue contribute "
    "copy create decide define delegate delete describe design determine disable discuss do don't "
    "download drop edit emphasize enable encourage ensure establish estimate evaluate examine expect "
    "experiment explain explore fill find fix focus follow fork gather get give go grant greet have "
    "help hold identify ignore imagine implement include install introduce invest invite join "
    "participate keep label launch lead learn leave let limit link list listen look maintain make "
    "mark measure mention merge migrate monitor move note notice offer open organize pay pick plan "
    "post practice prefer prepare prioritize promote protect provide publish pull push put quantify "
    "raise reach read reassess recognize record reduce refer reflect reject release remember remind "
    "remove rename reply report request require research reserve respect respond rest restart return "
    "review reward run save say schedule search see seek select send set settle share show sign skip "
    "speak specify spend start state stay step stick stop submit subscribe suggest summarize support "
    "switch take talk teach tell test thank think track train treat try turn understand update "
    "upgrade upload use verify visit wait watch welcome write never always please let's"
)
# A word after an imperative's look-alike that makes it a subject ("Check is …", "Support of …").
NOT_IMPERATIVE_NEXT = wordset(
    "is are was were has have had can could will would should may might must does did source sources of 's ’s"
)
# Verbs that point the reader elsewhere: "See …", "Join us on …", "Download …".
POINTER_VERBS = wordset(
    "see read learn check visit watch listen subscribe follow join sign register contact click "
    "download try explore browse find get go head refer view track send ping participate "
    "donate discover star share tweet email reach tune stay feel bookmark install please"
)
# Pointer verbs that are never an instruction about the subject itself: a call to action.
# Verbs that report what a source says ("[The WHO reports](…) that …", "…, [GitHub says](…).",
# "The study found that …"): the words that name a source, never the fact. The checks' attribution
# (`checks.attribution`) and the skip rules' form reading (`extract.skip`) read the same ones.
REPORTING_VERBS = wordset(
    "report reports reported say says said find finds found estimate estimates estimated note notes "
    "noted write writes wrote state states stated show shows showed conclude concludes concluded "
    "suggest suggests suggested indicate indicates indicated argue argues argued warn warns warned "
    "predict predicts predicted project projects projected announce announces announced confirm "
    "confirms confirmed claim claims claimed explain explains explained observe observes observed "
    "calculate calculates calculated add adds added tell tells told reveal reveals revealed "
    "highlight highlights highlighted"
)
REPORTING = "(?:" + "|".join(sorted(REPORTING_VERBS, key=len, reverse=True)) + ")"  # as a regex

CALL_VERBS = wordset("join subscribe register sign star tweet email donate tune")
